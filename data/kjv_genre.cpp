#include "harmonic/data/kjv_genre.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <random>

#include "harmonic/core/factories.h"
#include "harmonic/data/datasets.h"

namespace hm::data {
namespace {

int64_t count_words(std::string_view text) {
  int64_t n = 0;
  bool in_word = false;
  for (char ch : text) {
    bool space = ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r';
    n += !space && !in_word;
    in_word = !space;
  }
  return n;
}

// The chapters [first, last] (1-based, inclusive) of one book that go to one split.
struct ChapterRun {
  int64_t book, first, last;
  bool test;
};

// Per book: the test block of round(test_fraction * chapters) chapters at a seeded start, and
// the train runs before and after it.
std::vector<ChapterRun> split_chapters(const std::vector<int64_t>& chapters_per_book, double test_fraction,
                                       uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ChapterRun> runs;
  for (int64_t b = 0; b < static_cast<int64_t>(chapters_per_book.size()); ++b) {
    const int64_t n = chapters_per_book[b];
    if (n == 0) continue;
    const int64_t k = std::llround(test_fraction * static_cast<double>(n));
    const uint64_t draw = rng();  // one draw per book, used or not, so books do not shift each other
    const int64_t start = 1 + (k > 0 ? static_cast<int64_t>(draw % static_cast<uint64_t>(n - k + 1)) : 0);
    if (k == 0) {
      runs.push_back({b, 1, n, false});
      continue;
    }
    if (start > 1) runs.push_back({b, 1, start - 1, false});
    runs.push_back({b, start, start + k - 1, true});
    if (start + k <= n) runs.push_back({b, start + k, n, false});
  }
  return runs;
}

// Passages of at least passage_words words from the verses [begin, end) of one run.
void make_passages(const std::vector<KjvVerse>& verses, size_t begin, size_t end, int64_t passage_words,
                   std::vector<KjvPassage>& out) {
  const size_t run_start = out.size();
  KjvPassage cur{};
  bool open = false;
  auto add = [](KjvPassage& p, const KjvVerse& v) {
    if (!p.text.empty()) p.text += ' ';
    p.text += v.text;
    p.words += count_words(v.text);
    p.last_chapter = v.chapter, p.last_verse = v.verse;
  };
  for (size_t i = begin; i < end; ++i) {
    const KjvVerse& v = verses[i];
    if (!open) cur = KjvPassage{v.book, v.chapter, v.verse, v.chapter, v.verse, 0, 0, ""}, open = true;
    add(cur, v);
    if (cur.words >= passage_words) out.push_back(std::move(cur)), open = false;
  }
  if (!open) return;
  if (cur.words * 2 < passage_words && out.size() > run_start) {  // a short remainder joins the last passage
    KjvPassage& last = out.back();
    last.text += ' ' + cur.text;
    last.words += cur.words;
    last.last_chapter = cur.last_chapter, last.last_verse = cur.last_verse;
  } else {
    out.push_back(std::move(cur));
  }
}

}  // namespace

const std::vector<KjvBook>& kjv_books() {
  static const std::vector<KjvBook> books = [] {
    struct Group {
      int64_t genre;
      std::vector<std::pair<const char*, const char*>> books;
    };
    const std::vector<Group> groups = {
        {kLaw,
         {{"Ge", "Genesis"}, {"Exo", "Exodus"}, {"Lev", "Leviticus"}, {"Num", "Numbers"}, {"Deu", "Deuteronomy"}}},
        {kHistory,
         {{"Josh", "Joshua"},
          {"Jdgs", "Judges"},
          {"Ruth", "Ruth"},
          {"1Sm", "1 Samuel"},
          {"2Sm", "2 Samuel"},
          {"1Ki", "1 Kings"},
          {"2Ki", "2 Kings"},
          {"1Chr", "1 Chronicles"},
          {"2Chr", "2 Chronicles"},
          {"Ezra", "Ezra"},
          {"Neh", "Nehemiah"},
          {"Est", "Esther"}}},
        {kPoetry,
         {{"Job", "Job"},
          {"Psa", "Psalms"},
          {"Prv", "Proverbs"},
          {"Eccl", "Ecclesiastes"},
          {"SSol", "Song of Solomon"}}},
        {kProphets,
         {{"Isa", "Isaiah"},
          {"Jer", "Jeremiah"},
          {"Lam", "Lamentations"},
          {"Eze", "Ezekiel"},
          {"Dan", "Daniel"},
          {"Hos", "Hosea"},
          {"Joel", "Joel"},
          {"Amos", "Amos"},
          {"Obad", "Obadiah"},
          {"Jonah", "Jonah"},
          {"Mic", "Micah"},
          {"Nahum", "Nahum"},
          {"Hab", "Habakkuk"},
          {"Zep", "Zephaniah"},
          {"Hag", "Haggai"},
          {"Zec", "Zechariah"},
          {"Mal", "Malachi"}}},
        {kGospels, {{"Mat", "Matthew"}, {"Mark", "Mark"}, {"Luke", "Luke"}, {"John", "John"}, {"Acts", "Acts"}}},
        {kLetters,
         {{"Rom", "Romans"},          {"1Cor", "1 Corinthians"}, {"2Cor", "2 Corinthians"}, {"Gal", "Galatians"},
          {"Eph", "Ephesians"},       {"Phi", "Philippians"},    {"Col", "Colossians"},     {"1Th", "1 Thessalonians"},
          {"2Th", "2 Thessalonians"}, {"1Tim", "1 Timothy"},     {"2Tim", "2 Timothy"},     {"Titus", "Titus"},
          {"Phmn", "Philemon"},       {"Heb", "Hebrews"},        {"Jas", "James"},          {"1Pet", "1 Peter"},
          {"2Pet", "2 Peter"},        {"1Jn", "1 John"},         {"2Jn", "2 John"},         {"3Jn", "3 John"},
          {"Jude", "Jude"},           {"Rev", "Revelation"}}},
    };
    std::vector<KjvBook> out;
    for (const Group& g : groups)
      for (auto [abbrev, name] : g.books) out.push_back({abbrev, name, g.genre});
    return out;
  }();
  return books;
}

const std::vector<std::string>& kjv_genre_names() {
  static const std::vector<std::string> names = {"law", "history", "poetry", "prophets", "gospels", "letters"};
  return names;
}

int64_t kjv_book_index(std::string_view book) {
  const auto& books = kjv_books();
  for (size_t i = 0; i < books.size(); ++i)
    if (books[i].abbrev == book || books[i].name == book) return static_cast<int64_t>(i);
  throw Error(
      fmt::format("[kjv_book_index] unknown book '{}' (expected a `bible` abbreviation such as 'Ge' or "
                  "'1Sm', or an English name such as 'Genesis')",
                  book));
}

std::vector<KjvVerse> load_kjv_verses(const std::string& cache_dir) {
  constexpr std::string_view fn = "load_kjv_verses";
  const std::string path = kjv_verses_path(cache_dir);
  const std::string dump = read_text(path);
  std::vector<KjvVerse> verses;
  verses.reserve(31102);
  for_each_kjv_line(dump, fn, [&](size_t line_no, std::string_view ref, std::string_view text) {
    // "<Book><chapter>:<verse>"; the book may start with a digit ("1Sm3:4").
    const size_t colon = ref.find(':');
    size_t digits = colon;
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(ref[digits - 1]))) --digits;
    HM_CHECK(digits > 0 && digits < colon, fn, "'{}' line {}: '{}' is not '<Book><chapter>:<verse> <text>'", path,
             line_no, ref);
    KjvVerse v;
    v.book = kjv_book_index(ref.substr(0, digits));
    v.chapter = std::stoll(std::string(ref.substr(digits, colon - digits)));
    v.verse = std::stoll(std::string(ref.substr(colon + 1)));
    v.text = std::string(text);
    if (!verses.empty()) {
      const KjvVerse& p = verses.back();
      HM_CHECK(v.book > p.book ||
                   (v.book == p.book && (v.chapter > p.chapter || (v.chapter == p.chapter && v.verse > p.verse))),
               fn, "'{}' line {}: {}{}:{} comes after {}{}:{}; verses must be in canonical order", path, line_no,
               kjv_books()[v.book].abbrev, v.chapter, v.verse, kjv_books()[p.book].abbrev, p.chapter, p.verse);
    }
    verses.push_back(std::move(v));
  });
  check(!verses.empty(), fn, "'{}' holds no verses", path);
  return verses;
}

std::vector<int64_t> KjvGenreSplit::class_counts() const {
  std::vector<int64_t> counts(kKjvGenreCount, 0);
  if (!labels.defined()) return counts;
  for (int64_t y : labels.to_vector_as<int64_t>()) ++counts[static_cast<size_t>(y)];
  return counts;
}

int64_t KjvGenreData::id(const std::string& word) const { return tokenizer->id(word) + 1; }

std::vector<int64_t> KjvGenreData::encode(std::string_view text) const {
  std::vector<int64_t> ids = tokenizer->encode(text);
  for (int64_t& i : ids) ++i;  // the tokenizer's <unk> 0 becomes kUnk = 1
  return ids;
}

std::string KjvGenreData::decode(const Tensor& row) const {
  std::vector<int64_t> ids;
  for (int64_t i : row.to_vector_as<int64_t>())
    if (i != kPad) ids.push_back(i - 1);
  return tokenizer->decode(ids);
}

KjvGenreData make_kjv_genre(const std::vector<KjvVerse>& verses, const KjvGenreOptions& opt) {
  constexpr std::string_view fn = "make_kjv_genre";
  check(opt.passage_words >= 1 && opt.max_len >= 1 && opt.vocab_size >= 3, fn,
        "need passage_words >= 1, max_len >= 1 and vocab_size >= 3 (PAD, UNK and a word), got {}, {} and {}",
        opt.passage_words, opt.max_len, opt.vocab_size);
  check(opt.test_fraction > 0 && opt.test_fraction < 1, fn, "test_fraction must be in (0, 1), got {}",
        opt.test_fraction);
  check(!verses.empty(), fn, "no verses");
  const auto& books = kjv_books();

  // Chapters per book, then the runs of same-split chapters.
  std::vector<int64_t> chapters(books.size(), 0);
  for (const KjvVerse& v : verses) chapters[static_cast<size_t>(v.book)] = std::max(chapters[v.book], v.chapter);
  const std::vector<ChapterRun> runs = split_chapters(chapters, opt.test_fraction, opt.seed);

  // Passages per run; verses are in canonical order, so each run is one contiguous range.
  std::vector<KjvPassage> passages[2];  // train, test
  size_t i = 0;
  for (const ChapterRun& r : runs) {
    while (i < verses.size() && (verses[i].book < r.book || (verses[i].book == r.book && verses[i].chapter < r.first)))
      ++i;
    size_t j = i;
    while (j < verses.size() && verses[j].book == r.book && verses[j].chapter <= r.last) ++j;
    make_passages(verses, i, j, opt.passage_words, passages[r.test]);
    i = j;
  }

  KjvGenreData out;
  out.classes = kjv_genre_names();
  for (int s = 0; s < 2; ++s) {
    std::vector<int64_t> per_class(kKjvGenreCount, 0);
    for (const KjvPassage& p : passages[s]) ++per_class[books[p.book].genre];
    for (int64_t c = 0; c < kKjvGenreCount; ++c)
      check(per_class[c] > 0, fn, "the {} split has no '{}' passage (test_fraction {}, seed {}, {} verses given)",
            s ? "test" : "train", out.classes[c], opt.test_fraction, opt.seed, verses.size());
  }

  // The vocabulary from the training passages only.
  std::string corpus;
  for (const KjvPassage& p : passages[0]) corpus += p.text, corpus += '\n';
  out.tokenizer = std::make_shared<WordTokenizer>(
      WordTokenizer::fit(corpus, {.min_freq = 1, .max_vocab = opt.vocab_size - 1, .lowercase = true}));
  out.vocab = {"<pad>", "<unk>"};
  for (size_t t = 1; t < out.tokenizer->vocab().size(); ++t) out.vocab.push_back(out.tokenizer->vocab()[t]);

  for (int s = 0; s < 2; ++s) {
    KjvGenreSplit& split = s ? out.test : out.train;
    const int64_t n = static_cast<int64_t>(passages[s].size()), L = opt.max_len;
    std::vector<int64_t> ids(static_cast<size_t>(n * L), KjvGenreData::kPad), labels, lengths;
    for (int64_t r = 0; r < n; ++r) {
      KjvPassage& p = passages[s][r];
      std::vector<int64_t> tokens = out.encode(p.text);
      p.tokens = static_cast<int64_t>(tokens.size());
      const int64_t kept = std::min(p.tokens, L);  // the first max_len tokens ('post' truncation)
      std::copy_n(tokens.begin(), kept, ids.begin() + r * L);
      labels.push_back(books[p.book].genre);
      lengths.push_back(kept);
    }
    split.inputs = from_vector(ids, {n, L});
    split.labels = from_vector(labels, {n});
    split.lengths = from_vector(lengths, {n});
    split.passages = std::move(passages[s]);
    split.dataset = std::make_shared<TensorDataset>(split.inputs, split.labels);
  }
  return out;
}

KjvGenreData load_kjv_genre(const KjvGenreOptions& options) {
  return make_kjv_genre(load_kjv_verses(options.cache_dir), options);
}

}  // namespace hm::data
