#include "harmonic/data/kjv_corpus.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_set>

#include "harmonic/core/factories.h"

namespace hm::data {

namespace {

std::string ascii_lower(std::string s) {
  for (char& ch : s)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return s;
}

}  // namespace

const char* kjv_split_name(KjvSplit split) {
  switch (split) {
    case KjvSplit::Train:
      return "train";
    case KjvSplit::Val:
      return "val";
    case KjvSplit::Test:
      return "test";
  }
  return "?";
}

const KjvCorpusSplit& KjvCorpus::split(KjvSplit s) const {
  return s == KjvSplit::Train ? train : s == KjvSplit::Val ? val : test;
}

std::vector<KjvChapterBlock> kjv_chapter_blocks(const std::vector<int64_t>& chapters_per_book, double val_fraction,
                                                double test_fraction, uint64_t split_seed) {
  constexpr std::string_view fn = "kjv_chapter_blocks";
  check(val_fraction >= 0 && test_fraction >= 0 && val_fraction + test_fraction < 1, fn,
        "need val_fraction >= 0, test_fraction >= 0 and their sum < 1, got {} and {}", val_fraction, test_fraction);
  std::mt19937_64 rng(split_seed);
  std::vector<KjvChapterBlock> out;
  for (int64_t b = 0; b < static_cast<int64_t>(chapters_per_book.size()); ++b) {
    const int64_t n = chapters_per_book[static_cast<size_t>(b)];
    const uint64_t order = rng(), cut1 = rng(), cut2 = rng();  // three draws per book, used or not
    if (n == 0) continue;
    const int64_t kv = std::llround(val_fraction * static_cast<double>(n));
    const int64_t kt = std::llround(test_fraction * static_cast<double>(n));
    if (kv < 1 || kt < 1 || kv + kt + 1 > n) {
      out.push_back({b, 1, n, KjvSplit::Train});
      continue;
    }
    // Training chapters: `before` ahead of the first block, `between` the blocks, the rest after.
    const uint64_t free = static_cast<uint64_t>(n - kv - kt);
    uint64_t a = cut1 % (free + 1), c = cut2 % (free + 1);
    if (a > c) std::swap(a, c);
    const bool val_first = order % 2 == 0;
    const int64_t k1 = val_first ? kv : kt, k2 = val_first ? kt : kv;
    const KjvSplit s1 = val_first ? KjvSplit::Val : KjvSplit::Test, s2 = val_first ? KjvSplit::Test : KjvSplit::Val;
    int64_t ch = 1;
    auto push = [&](int64_t count, KjvSplit s) {
      if (count > 0) out.push_back({b, ch, ch + count - 1, s});
      ch += count;
    };
    push(static_cast<int64_t>(a), KjvSplit::Train);
    push(k1, s1);
    push(static_cast<int64_t>(c - a), KjvSplit::Train);
    push(k2, s2);
    push(n - ch + 1, KjvSplit::Train);
  }
  return out;
}

KjvCorpus make_kjv_corpus(const std::vector<KjvVerse>& verses, const KjvCorpusOptions& opt) {
  constexpr std::string_view fn = "make_kjv_corpus";
  check(opt.tokenizer == "word" || opt.tokenizer == "char", fn, "tokenizer must be \"word\" or \"char\", got \"{}\"",
        opt.tokenizer);
  check(opt.max_vocab >= 2, fn, "max_vocab must be >= 2 (<unk> and a word), got {}", opt.max_vocab);
  check(!verses.empty(), fn, "no verses");
  const auto& books = kjv_books();
  std::vector<int64_t> chapters(books.size(), 0);
  for (const KjvVerse& v : verses) {
    int64_t& c = chapters[static_cast<size_t>(v.book)];
    c = std::max(c, v.chapter);
  }
  const std::vector<KjvChapterBlock> blocks =
      kjv_chapter_blocks(chapters, opt.val_fraction, opt.test_fraction, opt.split_seed);

  // Each split's text: its blocks' verses in canonical order (verses are in canonical order,
  // and so are the blocks, so one forward pass assigns them).
  KjvCorpus out;
  KjvCorpusSplit* splits[3] = {&out.train, &out.val, &out.test};
  std::string text[3];
  size_t i = 0;
  for (const KjvChapterBlock& blk : blocks) {
    KjvCorpusSplit& s = *splits[static_cast<int>(blk.split)];
    std::string& t = text[static_cast<int>(blk.split)];
    while (i < verses.size() &&
           (verses[i].book < blk.book || (verses[i].book == blk.book && verses[i].chapter < blk.first_chapter)))
      ++i;
    const size_t begin = i;
    for (; i < verses.size() && verses[i].book == blk.book && verses[i].chapter <= blk.last_chapter; ++i) {
      if (!t.empty()) t += ' ';
      if (opt.references) t += fmt::format("{}:{} ", verses[i].chapter, verses[i].verse);
      t += verses[i].text;
    }
    if (i == begin) continue;  // a subset of verses may leave a block empty
    s.blocks.push_back(blk);
    s.chapters += blk.last_chapter - blk.first_chapter + 1;
    s.verses += static_cast<int64_t>(i - begin);
  }
  for (int s = 0; s < 3; ++s)
    check(!text[s].empty(), fn, "the {} split is empty ({} verses given, val_fraction {}, test_fraction {})",
          kjv_split_name(static_cast<KjvSplit>(s)), verses.size(), opt.val_fraction, opt.test_fraction);

  if (opt.tokenizer == "char") {
    std::string train = opt.lowercase ? ascii_lower(text[0]) : text[0];
    auto tok = std::make_shared<CharTokenizer>(CharTokenizer::fit(train));
    out.train_distinct = tok->vocab_size() - 1;
    check(tok->vocab_size() <= opt.max_vocab, fn, "the {} characters of the training text exceed max_vocab {}",
          tok->vocab_size(), opt.max_vocab);
    out.tokenizer = tok;
    if (opt.lowercase)
      for (std::string& t : text) t = ascii_lower(t);
  } else {
    WordTokenizer tok =
        WordTokenizer::fit(text[0], {.min_freq = 1, .max_vocab = opt.max_vocab, .lowercase = opt.lowercase});
    std::vector<std::string> words = WordTokenizer::split(text[0], opt.lowercase);
    out.train_distinct = static_cast<int64_t>(std::unordered_set<std::string>(words.begin(), words.end()).size());
    out.tokenizer = std::make_shared<WordTokenizer>(std::move(tok));
  }
  for (int s = 0; s < 3; ++s) {
    std::vector<int64_t> ids = out.tokenizer->encode(text[s]);
    splits[s]->unk = std::count(ids.begin(), ids.end(), out.tokenizer->unk_id());
    const int64_t n = static_cast<int64_t>(ids.size());
    splits[s]->tokens = from_vector(ids, {n});
  }
  return out;
}

KjvCorpus load_kjv_corpus(const KjvCorpusOptions& options) {
  return make_kjv_corpus(load_kjv_verses(options.cache_dir), options);
}

}  // namespace hm::data
