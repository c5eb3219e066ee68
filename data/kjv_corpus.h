// KJV corpus: a word-level language-modelling corpus from the King James Bible (Debian package
// bible-kjv, read by data/kjv_genre.h's load_kjv_verses), the WikiText-103 of this machine for
// the FourierFormer language model (NOTES section 2).
//
//   data::KjvCorpus c = data::load_kjv_corpus({.max_vocab = 8192});
//   c.train.tokens   // (N,) int64 token stream; c.tokenizer encodes and decodes it
//
// Splits, by chapter blocks. WikiText splits by article, so no article is in two splits; our
// unit is a block of contiguous chapters of one book. In every book with at least
// 1 + k_val + k_test chapters, where k_x = round(x_fraction * chapters) and both are >= 1, one
// block of k_val chapters goes to validation and one of k_test chapters to test; the rest of
// the book is training text. The two blocks are placed by split_seed: one std::mt19937_64 per
// corpus, three draws per book (used or not, so books do not shift each other): the order of
// the two blocks, then two cut points in [0, free chapters] that say how many training
// chapters come before the first block and between the blocks. So no chapter (hence no
// verse) is in two splits; every genre of kjv_genre.h has text in every split (books of 10+
// chapters exist in each genre, tested); the held-out text is whole chapters, not scattered
// verses, so it cannot be predicted from a neighbouring training verse. Books with fewer
// chapters (at 0.05: under 10, e.g. Ruth, Jonah, Philemon) are training text only, so the
// fractions are of the chapters of the longer books and the token fractions differ a little.
//
// Streams: each split's verses in canonical order, joined by spaces (no verse or chapter
// marker; the blocks of a split are concatenated in book order), tokenised by
// WordTokenizer::split (words, each ASCII punctuation character its own token). The tokenizer
// is fitted on the TRAINING text only: <unk> (id 0) then the max_vocab - 1 most frequent
// training tokens (ties by string); case is kept unless lowercase.
//
// Options for the RNG-LM study (tools/studies/rng_lm): tokenizer "char" fits a CharTokenizer
// on the training text instead (every character of it a token; max_vocab must not bind), and
// references prefixes each verse with its "chapter:verse " (e.g. "3:16 For God so loved"), so
// digits and ':' occur; the KJV text itself has '.', ',' and '-', but never a number such as
// 0.42 or a negative sign before a digit.
//
// Measured at the defaults (val/test 0.05, split_seed 0, max_vocab 8192, case kept), bible-kjv
// 4.38, 917,240 tokens in all; 36 of the 66 books have held-out blocks (Psalms: 8 + 8 chapters):
//   split   chapters  verses   tokens   <unk>
//   train   1075      28242    833,198  0.66%
//   val       57       1386     39,969  1.45%
//   test      57       1474     44,073  1.04%
// The training text has 13,050 distinct tokens, so max_vocab 8192 binds; the held-out <unk> are
// rare training words cut from the vocabulary and words never seen in training. Lowercased:
// 12,116 distinct, <unk> 0.48% / 1.26% / 0.84%. Building it takes about 0.4 s.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harmonic/core/tensor.h"
#include "harmonic/data/kjv_genre.h"
#include "harmonic/data/text.h"

namespace hm::data {

struct KjvCorpusOptions {
  double val_fraction = 0.05;   // of each long-enough book's chapters, one contiguous block
  double test_fraction = 0.05;  // likewise, a second block
  uint64_t split_seed = 0;      // places the two blocks in each book
  int64_t max_vocab = 8192;     // tokenizer ids, <unk> included
  bool lowercase = false;       // ASCII lowercasing before fitting and encoding (both tokenizers)
  std::string tokenizer = "word";  // "word" (WordTokenizer, max_vocab binds) | "char" (CharTokenizer)
  bool references = false;         // prefix each verse with "chapter:verse " (digits and ':' in the text)
  std::string cache_dir;        // for kjv_verses.txt; empty = data_cache_dir()
};

enum class KjvSplit : int { Train = 0, Val = 1, Test = 2 };
const char* kjv_split_name(KjvSplit split);  // "train", "val", "test"

// Chapters [first_chapter, last_chapter] (1-based, inclusive) of one book, in one split.
struct KjvChapterBlock {
  int64_t book;  // index into kjv_books()
  int64_t first_chapter, last_chapter;
  KjvSplit split;
};

struct KjvCorpusSplit {
  Tensor tokens;                        // (N,) int64 ids of the tokenizer
  std::vector<KjvChapterBlock> blocks;  // in stream order
  int64_t chapters = 0, verses = 0;
  int64_t unk = 0;  // tokens that are <unk>
  int64_t size() const { return tokens.defined() ? tokens.numel() : 0; }
  double unk_rate() const { return size() ? static_cast<double>(unk) / static_cast<double>(size()) : 0.0; }
};

struct KjvCorpus {
  KjvCorpusSplit train, val, test;
  std::shared_ptr<Tokenizer> tokenizer;  // fitted on train only (a WordTokenizer or a CharTokenizer)
  int64_t train_distinct = 0;            // distinct tokens of the training text (before max_vocab)
  const KjvCorpusSplit& split(KjvSplit s) const;
};

// The chapter blocks of every book (train blocks included), in canonical order; see the header.
std::vector<KjvChapterBlock> kjv_chapter_blocks(const std::vector<int64_t>& chapters_per_book, double val_fraction,
                                                double test_fraction, uint64_t split_seed);

// The corpus from verses (load_kjv_verses(), or any subset in canonical order).
KjvCorpus make_kjv_corpus(const std::vector<KjvVerse>& verses, const KjvCorpusOptions& options = {});
// load_kjv_verses(options.cache_dir) then make_kjv_corpus; names bible-kjv and `bash
// .ci/install-data` when the package is missing.
KjvCorpus load_kjv_corpus(const KjvCorpusOptions& options = {});

}  // namespace hm::data
