// KJV genre: a six-class text-classification data set from the King James Bible (Debian package
// bible-kjv), standing in for the IMDB reviews of the FRU paper (section 6.4: word-level
// vocabulary of the most frequent words, sequences truncated to 300).
//
//   auto kjv = data::load_kjv_genre({.passage_words = 300, .vocab_size = 10000, .max_len = 300});
//   kjv.train.dataset  // TensorDataset: input (max_len,) int64 word ids, target () int64 class
//
// Examples are passages of contiguous verses, about `passage_words` words each, labelled by the
// kind of book they come from:
//
//   label  class      books (as `bible` abbreviates them)
//   0      law        Genesis-Deuteronomy   Ge Exo Lev Num Deu                        (5 books)
//   1      history    Joshua-Esther         Josh Jdgs Ruth 1Sm 2Sm 1Ki 2Ki 1Chr 2Chr
//                                           Ezra Neh Est                              (12)
//   2      poetry     Job-Song of Solomon   Job Psa Prv Eccl SSol                     (5)
//   3      prophets   Isaiah-Malachi        Isa Jer Lam Eze Dan Hos Joel Amos Obad Jonah
//                                           Mic Nahum Hab Zep Hag Zec Mal             (17)
//   4      gospels    Matthew-Acts          Mat Mark Luke John Acts                   (5)
//   5      letters    Romans-Revelation     Rom 1Cor 2Cor Gal Eph Phi Col 1Th 2Th 1Tim 2Tim
//                                           Titus Phmn Heb Jas 1Pet 2Pet 1Jn 2Jn 3Jn
//                                           Jude Rev                                  (22)
//
// Revelation is a letter here: it is written as one ("John to the seven churches which are in
// Asia: Grace be unto you", 1:4; chapters 2-3 are seven letters; it closes with a letter's
// benediction, 22:21), and it keeps the prophets class Old-Testament only, so no class mixes
// the two Testaments. Lamentations sits with the prophets (it lies in Isaiah-Malachi).
//
// Split, by chapter ranges: in each book a contiguous block of round(test_fraction * chapters)
// chapters is the test split, the rest train; the block's start is drawn from `seed` (one
// std::mt19937_64(seed) draw per book, in book order, modulo the number of possible starts).
// At test_fraction 0.2 the books of one or two chapters (Obadiah, Haggai, Philemon, 2 John,
// 3 John, Jude) are train only. So no chapter, verse
// or passage is in both splits, and every class has test passages from several books.
//
// Passages cross chapter boundaries but never book boundaries nor the train/test boundary:
// Psalm 117 has 33 words and many chapters are far shorter or longer than 300 words; chapter
// divisions are a medieval editorial layer, and fixed-size passages of running text are closer
// to IMDB reviews than chapters are. Within each run of consecutive same-split chapters of a
// book, verses are added until the passage has at least `passage_words` words (whitespace
// separated); a remainder shorter than half a passage is appended to the run's last passage
// (or, when it is the whole run, kept as a short passage). Every verse is in exactly one passage.
//
// Tokens: WordTokenizer::split with lowercasing (words, each ASCII punctuation character its own
// token; like the Moses tokenizer behind TFLearn's imdb.pkl). The vocabulary comes from the
// TRAINING passages only: PAD = 0, UNK = 1, then the vocab_size - 2 most frequent training
// words (ties by string) as ids 2.. (as in TFLearn's imdb.load_data(n_words): ids >= n_words
// become the UNK id 1). Each passage keeps its FIRST max_len tokens and is padded with PAD at
// the end. The paper only says "we truncate all sequences to a length of 300" (in TFLearn);
// TFLearn's pad_sequences defaults to padding='post', truncating='post' (keep the start) in
// its later versions, 'pre'/'pre' (keep the end, as Keras) in early ones. We keep the start,
// so `lengths` is a prefix length and a passage's opening verses are always seen.
//
// At the defaults (seed 0): 2513 passages, train 2015 / test 498; per class (train/test)
// law 415/83, history 507/137, poetry 215/57, prophets 420/101, gospels 275/70, letters 183/50.
// A passage of 300 words is ~364 tokens (punctuation counts), so at max_len 300 almost all
// (2453 of 2513) are truncated; passage_words 230 gives a mean of 284 tokens, IMDB's mean, with
// 469 of 3234 truncated. The training split has 11476 distinct tokens, so vocab_size 10000 binds.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harmonic/core/tensor.h"
#include "harmonic/data/dataset.h"
#include "harmonic/data/text.h"

namespace hm::data {

enum KjvGenre : int64_t { kLaw = 0, kHistory, kPoetry, kProphets, kGospels, kLetters, kKjvGenreCount };

struct KjvBook {
  std::string abbrev;  // as `bible` prints it: "Ge", "1Sm", "Rev"
  std::string name;    // "Genesis"
  int64_t genre;       // KjvGenre
};
// The 66 books in canonical order with their classes (the table above).
const std::vector<KjvBook>& kjv_books();
const std::vector<std::string>& kjv_genre_names();  // "law", "history", "poetry", "prophets", "gospels", "letters"
// Index into kjv_books() of a `bible` abbreviation or an English name ("Romans"); throws when unknown.
int64_t kjv_book_index(std::string_view book);

struct KjvVerse {
  int64_t book;     // index into kjv_books()
  int64_t chapter;  // 1-based
  int64_t verse;    // 1-based
  std::string text;
};
// Every verse of kjv_verses_path(cache_dir), in canonical order (31102 verses).
std::vector<KjvVerse> load_kjv_verses(const std::string& cache_dir = "");

struct KjvGenreOptions {
  int64_t passage_words = 300;  // words per passage (about; see the header)
  int64_t vocab_size = 10000;   // ids in the vocabulary, PAD and UNK included
  int64_t max_len = 300;        // tokens per sequence: the first max_len kept, PAD after
  double test_fraction = 0.2;   // of each book's chapters, as one contiguous block
  uint64_t seed = 0;            // places each book's test block
  std::string cache_dir;        // for kjv_verses.txt; empty = data_cache_dir()
};

struct KjvPassage {
  int64_t book;                        // index into kjv_books()
  int64_t first_chapter, first_verse;  // where it starts
  int64_t last_chapter, last_verse;    // where it ends (inclusive)
  int64_t words;                       // whitespace-separated words
  int64_t tokens;                      // words and punctuation, before truncation
  std::string text;                    // the verses joined by spaces
};

struct KjvGenreSplit {
  Tensor inputs;                           // (N, max_len) int64 word ids, PAD = 0 after the first `lengths` tokens
  Tensor labels;                           // (N,) int64 in 0..5 (KjvGenre)
  Tensor lengths;                          // (N,) int64 tokens kept, min(passage tokens, max_len)
  std::vector<KjvPassage> passages;        // row i of inputs
  std::shared_ptr<TensorDataset> dataset;  // (inputs, labels)
  int64_t size() const { return inputs.defined() ? inputs.size(0) : 0; }
  std::vector<int64_t> class_counts() const;  // (6) passages per label
};

struct KjvGenreData {
  static constexpr int64_t kPad = 0, kUnk = 1;
  KjvGenreSplit train, test;
  std::vector<std::string> classes;          // kjv_genre_names()
  std::vector<std::string> vocab;            // id -> word: "<pad>", "<unk>", then training words by frequency
  std::shared_ptr<WordTokenizer> tokenizer;  // the training words; its id + 1 is our id (<unk> 0 -> 1)
  int64_t vocab_size() const { return static_cast<int64_t>(vocab.size()); }
  int64_t id(const std::string& word) const;                 // kUnk when not in the vocabulary
  std::vector<int64_t> encode(std::string_view text) const;  // all tokens, not truncated
  std::string decode(const Tensor& row) const;               // (L,) int64; PAD dropped
};

// Builds the data set from verses (load_kjv_verses(), or any subset in canonical order).
KjvGenreData make_kjv_genre(const std::vector<KjvVerse>& verses, const KjvGenreOptions& options = {});
// load_kjv_verses(options.cache_dir) then make_kjv_genre. Throws an hm::Error naming bible-kjv
// and `bash .ci/install-data` when the package is missing.
KjvGenreData load_kjv_genre(const KjvGenreOptions& options = {});

}  // namespace hm::data
