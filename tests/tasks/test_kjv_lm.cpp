// The KJV language model: the corpus split by chapter blocks (data/kjv_corpus.h), the kjv-lm
// task (tools/tasks/kjv_lm.h), saved language models (tools/tasks/language_model.h) and
// perplexity of a text (tools/tasks/lm_text.h). The corpus cases need bible-kjv and skip with
// a message without it; the chapter blocks and the text perplexity do not.
#include <cmath>
#include <fstream>
#include <set>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/data/datasets.h"
#include "harmonic/data/kjv_corpus.h"
#include "harmonic/ops/ops.h"
#include "tests/data_helpers.h"
#include "tests/helpers.h"
#include "harmonic/tools/tasks/kjv_lm.h"
#include "harmonic/tools/tasks/language_model.h"
#include "harmonic/tools/tasks/lm_text.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/trainer.h"

using namespace hm;
using namespace hm::data;
using namespace hm::test;

namespace {

const std::vector<KjvVerse>& verses() {
  static const std::vector<KjvVerse> v = load_kjv_verses();
  return v;
}

const std::shared_ptr<const KjvCorpus>& default_corpus() {
  static const auto c = std::make_shared<const KjvCorpus>(make_kjv_corpus(verses()));
  return c;
}

// A tiny kjv-lm config: 1 layer of width 32, context 16.
train::Json tiny_config(const std::string& attention, int64_t steps) {
  train::Json c = train::default_config(train::find_task(train::kKjvLmTask));
  for (std::string s :
       {"n_layer=1", "n_head=2", "n_embd=32", "n_inner=64", "block_size=16", "batch_size=8", "eval_tokens=1024",
        "lr=0.003", "trainer.warmup_steps=0", "trainer.eval_every=0", "trainer.log_every=1000"})
    train::apply_override(c, s);
  train::apply_override(c, "attention=" + attention);
  train::apply_override(c, fmt::format("trainer.steps={}", steps));
  return c;
}

}  // namespace

TEST_CASE("kjv corpus: chapter blocks cover every chapter once, seeded placement") {
  const std::vector<int64_t> chapters = {50, 3, 20, 9, 10, 0, 150};
  for (uint64_t seed : {0, 1, 2, 3}) {
    auto blocks = kjv_chapter_blocks(chapters, 0.05, 0.05, seed);
    std::vector<std::vector<int>> seen(chapters.size());
    for (size_t b = 0; b < chapters.size(); ++b) seen[b].assign(static_cast<size_t>(chapters[b]) + 1, 0);
    std::vector<std::array<int64_t, 3>> per_book(chapters.size(), {0, 0, 0});
    for (const KjvChapterBlock& blk : blocks) {
      REQUIRE(blk.first_chapter >= 1);
      REQUIRE(blk.last_chapter <= chapters[static_cast<size_t>(blk.book)]);
      for (int64_t c = blk.first_chapter; c <= blk.last_chapter; ++c) ++seen[blk.book][c];
      per_book[blk.book][static_cast<int>(blk.split)] += blk.last_chapter - blk.first_chapter + 1;
    }
    for (size_t b = 0; b < chapters.size(); ++b)
      for (int64_t c = 1; c <= chapters[b]; ++c) CHECK(seen[b][c] == 1);
    // round(0.05 n) chapters each where both are >= 1 and a training chapter is left: n >= 10.
    CHECK(per_book[0][1] == 3);  // round(2.5) = 3 (llround rounds half away from zero)
    CHECK(per_book[0][2] == 3);
    CHECK(per_book[1][0] == 3);  // 3 chapters: train only
    CHECK(per_book[3][0] == 9);  // round(0.45) = 0
    CHECK(per_book[4][1] == 1);
    CHECK(per_book[4][2] == 1);
    CHECK(per_book[6][1] == 8);
  }
  CHECK(kjv_chapter_blocks(chapters, 0.05, 0.05, 0).size() != 0);
  bool differ = false;
  auto a = kjv_chapter_blocks(chapters, 0.05, 0.05, 0), b = kjv_chapter_blocks(chapters, 0.05, 0.05, 1);
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) differ |= a[i].first_chapter != b[i].first_chapter;
  CHECK((differ || a.size() != b.size()));
  CHECK(throws_with([&] { kjv_chapter_blocks(chapters, 0.6, 0.5, 0); }, {"[kjv_chapter_blocks]", "0.6"}));
}

TEST_CASE("kjv corpus: no chapter in two splits, every genre in every split, train-only vocabulary") {
  if (!have_kjv()) return;
  const KjvCorpus& c = *default_corpus();
  std::set<std::pair<int64_t, int64_t>> chapters[3];
  int64_t verses_total = 0;
  for (KjvSplit s : {KjvSplit::Train, KjvSplit::Val, KjvSplit::Test}) {
    const KjvCorpusSplit& sp = c.split(s);
    std::set<int64_t> genres;
    for (const KjvChapterBlock& b : sp.blocks) {
      CHECK(b.split == s);
      genres.insert(kjv_books()[static_cast<size_t>(b.book)].genre);
      for (int64_t ch = b.first_chapter; ch <= b.last_chapter; ++ch) chapters[static_cast<int>(s)].insert({b.book, ch});
    }
    CHECK(genres.size() == kKjvGenreCount);
    CHECK(static_cast<int64_t>(chapters[static_cast<int>(s)].size()) == sp.chapters);
    verses_total += sp.verses;
    MESSAGE(std::string(kjv_split_name(s)) << ": " << sp.chapters << " chapters, " << sp.verses << " verses, "
                                           << sp.size() << " tokens, unk " << sp.unk_rate());
  }
  for (int a = 0; a < 3; ++a)
    for (int b = a + 1; b < 3; ++b)
      for (const auto& ch : chapters[a]) CHECK(chapters[b].count(ch) == 0);
  CHECK(verses_total == static_cast<int64_t>(verses().size()));  // every verse in exactly one split
  CHECK(chapters[0].size() + chapters[1].size() + chapters[2].size() == 1189);
  // The measured numbers of the header (bible-kjv 4.38).
  CHECK(c.train.size() == 833198);
  CHECK(c.val.size() == 39969);
  CHECK(c.test.size() == 44073);
  CHECK(c.tokenizer->vocab_size() == 8192);
  CHECK(c.train_distinct == 13050);
  CHECK(c.val.unk_rate() > c.train.unk_rate());
  // Fitted on train only: a word of a held-out chapter alone is <unk>.
  // The streams are ids of the tokenizer; counts agree.
  CHECK(c.train.unk == sum(eq(c.train.tokens, 0.0).to(DType::Int64)).item<int64_t>());
}

TEST_CASE("kjv corpus: the tokenizer round-trips KJV verses (case kept)") {
  if (!have_kjv()) return;
  const KjvCorpus& c = *default_corpus();
  const auto& tok = dynamic_cast<const WordTokenizer&>(*c.tokenizer);
  CHECK(tok.decode(tok.encode("In the beginning God created the heaven and the earth.")) ==
        "In the beginning God created the heaven and the earth.");
  int64_t checked = 0;
  for (size_t i = 0; i < verses().size(); i += 97) {
    const std::string& text = verses()[i].text;
    std::vector<int64_t> ids = tok.encode(text);
    if (std::count(ids.begin(), ids.end(), tok.unk_id()) > 0) continue;
    // The words and punctuation survive (decode's spacing before closing punctuation is its own).
    CHECK(WordTokenizer::split(tok.decode(ids), false) == WordTokenizer::split(text, false));
    ++checked;
  }
  MESSAGE("round-tripped " << checked << " verses");
  CHECK(checked > 250);
  CHECK(tok.id("God") != tok.id("god"));  // case kept
}

TEST_CASE("kjv-lm task: a tiny model trains a few steps and its validation loss falls") {
  if (!have_kjv()) return;
  train::Json config = tiny_config("softmax", 40);
  train::KjvLmTask task(config, Device::cpu(), default_corpus());
  CHECK(task.gpt().config.vocab_size == 8192);
  train::Trainer trainer(task, train::kKjvLmTask, config, "");
  trainer.log = nullptr;
  const train::Json before = trainer.evaluate();
  trainer.fit();
  const train::Json after = trainer.evaluate();
  MESSAGE("val loss " << before["val_loss"] << " -> " << after["val_loss"]);
  CHECK(before["val_loss"].get<double>() > 8.5);  // ~ log(8192) = 9.01 at init
  CHECK(after["val_loss"].get<double>() < before["val_loss"].get<double>() - 1.0);
  CHECK(std::abs(after["val_ppl"].get<double>() - std::exp(after["val_loss"].get<double>())) <
        1e-6 * after["val_ppl"].get<double>());
  for (const char* k :
       {"test_loss", "test_ppl", "test_head_l2_mean", "test_head_l2_std", "train_head_l2_mean", "train_head_l2_std"})
    CHECK(after.contains(k));
  CHECK(!after.contains("r_mean"));                       // softmax
  CHECK(after["test_head_l2_std"].get<double>() == 0.0);  // one layer
}

TEST_CASE("kjv-lm task: Fourier attention reports R, bad keys are named") {
  if (!have_kjv()) return;
  train::Json config = tiny_config("fourier", 3);
  train::apply_override(config, "n_layer=2");
  train::KjvLmTask task(config, Device::cpu(), default_corpus());
  train::Trainer trainer(task, train::kKjvLmTask, config, "");
  trainer.log = nullptr;
  trainer.fit();
  const train::Json m = trainer.evaluate();
  CHECK(std::abs(m["r_mean"].get<double>() - 2.0) < 0.1);  // starts at fourier_r_init 2
  CHECK(m["test_head_l2_mean"].get<double>() > 0);
  train::Json bad = tiny_config("cosine", 1);
  CHECK(throws_with([&] { train::KjvLmTask t(bad, Device::cpu(), default_corpus()); }, {"[kjv-lm]", "cosine"}));
  bad = tiny_config("softmax", 1);
  train::apply_override(bad, "positions=rotary");
  CHECK(throws_with([&] { train::KjvLmTask t(bad, Device::cpu(), default_corpus()); }, {"[kjv-lm]", "rotary"}));
}

TEST_CASE("kjv-lm task: fourier_r_lr gives log R an Adam group of its own, scheduled like the rest") {
  if (!have_kjv()) return;
  train::Json config = tiny_config("fourier", 6);
  for (std::string s : {"n_layer=2", "fourier_log_r=true", "fourier_r_lr=0.05", "trainer.warmup_steps=2"})
    train::apply_override(config, s);
  train::KjvLmTask task(config, Device::cpu(), default_corpus());
  optim::Optimizer& opt = task.optimizer();
  REQUIRE(opt.num_groups() == 2);
  const optim::ParamGroup& r = opt.group(1);
  CHECK(r.names == std::vector<std::string>{"transformer.layers.0.self_attn.score.log_R",
                                             "transformer.layers.1.self_attn.score.log_R"});
  CHECK(r.initial_lr == 0.05);
  CHECK(r.weight_decay == 0.0);
  CHECK(opt.group(0).initial_lr == 0.003);
  for (const std::string& n : opt.group(0).names) CHECK(n.find("log_R") == std::string::npos);
  train::Trainer trainer(task, train::kKjvLmTask, config, "");
  trainer.log = nullptr;
  trainer.fit();
  // After the last step of the cosine schedule both groups sit at the same fraction of their initial lr.
  CHECK(opt.lr(1) / 0.05 == doctest::Approx(opt.lr(0) / 0.003));
  const train::Json m = trainer.evaluate();
  // Six steps at up to 0.05 in log R: each layer's R leaves 2 by far more than the model's lr could move it.
  for (const char* k : {"r_layer0", "r_layer1"}) {
    MESSAGE(std::string(k) << " " << m[k]);
    CHECK(std::abs(m[k].get<double>() - 2.0) > 0.02);
  }
  CHECK(m["r_mean"].get<double>() == doctest::Approx((m["r_layer0"].get<double>() + m["r_layer1"].get<double>()) / 2));
  // Softmax has no R to move; a negative lr is refused; 0 keeps one group.
  train::Json bad = tiny_config("softmax", 1);
  train::apply_override(bad, "fourier_r_lr=0.1");
  CHECK(throws_with([&] { train::KjvLmTask t(bad, Device::cpu(), default_corpus()); },
                    {"[kjv-lm]", "fourier_r_lr 0.1", "no Fourier bandwidth R"}));
  bad = tiny_config("fourier", 1);
  train::apply_override(bad, "fourier_r_lr=-1");
  CHECK(throws_with([&] { train::KjvLmTask t(bad, Device::cpu(), default_corpus()); }, {"[kjv-lm]", "got -1"}));
  train::KjvLmTask plain(tiny_config("fourier", 1), Device::cpu(), default_corpus());
  CHECK(plain.optimizer().num_groups() == 1);
}

TEST_CASE("saved language model: save/load round trip gives identical logits, run directories load too") {
  if (!have_kjv()) return;
  ScratchDir dir;
  train::Json config = tiny_config("fourier", 5);
  train::KjvLmTask task(config, Device::cpu(), default_corpus());
  train::Trainer trainer(task, train::kKjvLmTask, config, dir.str() + "/run");
  trainer.log = nullptr;
  trainer.fit();
  task.gpt().eval();
  Tensor ids = reshape(task.tokenizer().encode_tensor("And God said, Let there be light"), {1, -1});
  Tensor expected;
  {
    NoGradGuard no_grad;
    expected = task.gpt().forward(ids);
  }
  const std::string saved = dir.str() + "/model";
  train::save_language_model(saved, task.gpt(), task.tokenizer(), task.config());
  CHECK(train::is_saved_language_model(saved));
  train::save_language_model(saved, task.gpt(), task.tokenizer(), task.config());  // replaces it
  NoGradGuard no_grad;
  for (const std::string& path : {saved, dir.str() + "/run", dir.str() + "/run/checkpoint_last.safetensors"}) {
    CAPTURE(path);
    train::LanguageModel lm = train::load_language_model(path);
    CHECK(lm.tokenizer->vocab() == task.tokenizer().vocab());
    CHECK(lm.gpt->config.attention == nn::AttentionKernel::Fourier);
    CHECK(lm.task_config["attention"] == "fourier");
    CHECK(lm.gpt->forward(ids).to_vector() == expected.to_vector());
  }
  std::ofstream(dir.str() + "/other.txt") << "x";
  CHECK(throws_with([&] { train::save_language_model(dir.str(), task.gpt(), task.tokenizer()); },
                    {"[save_language_model]", "not part of a saved language model"}));
  CHECK(throws_with([&] { train::load_language_model(dir.str() + "/nothing"); }, {"[load_language_model]", "nothing"}));
}

TEST_CASE("eval --text: the perplexity of a text equals exp of the directly computed mean NLL") {
  // A tiny model and tokenizer with no corpus: words of a small text, a GPT of context 8.
  const std::string text =
      "the cat sat on the mat . the dog sat on the log . a cat and a dog met on a mat by the log , and the cat ran .";
  ScratchDir dir;
  auto tok = std::make_shared<WordTokenizer>(WordTokenizer::fit("the cat sat on mat . dog log a and met"));
  Generator gen(3);
  models::GPTConfig c{.vocab_size = tok->vocab_size(), .block_size = 8, .n_layer = 1, .n_head = 2, .n_embd = 8};
  models::GPT gpt(c, &gen);
  train::save_language_model(dir.str() + "/m", gpt, *tok);
  train::LanguageModel lm = train::load_language_model(dir.str() + "/m");
  CHECK(lm.task_config.is_null());
  train::TextScore s = train::score_text(lm, text);
  // Directly: windows [0, 8), [8, 16), ... of inputs, each predicting the next token, the last partial.
  std::vector<int64_t> ids = tok->encode(text);
  const int64_t n = static_cast<int64_t>(ids.size());
  double nll = 0;
  NoGradGuard no_grad;
  lm.gpt->eval();
  for (int64_t start = 0; start + 1 < n; start += 8) {
    const int64_t len = std::min<int64_t>(8, n - 1 - start);
    Tensor x = from_vector(std::vector<int64_t>(ids.begin() + start, ids.begin() + start + len), {1, len});
    Tensor y = from_vector(std::vector<int64_t>(ids.begin() + start + 1, ids.begin() + start + 1 + len), {1, len});
    nll += cross_entropy(lm.gpt->forward(x), y, {.class_dim = -1}).item<double>() * static_cast<double>(len);
  }
  CHECK(s.tokens == n);
  CHECK(s.score.tokens == n - 1);
  CHECK(s.unk == 3);  // "by", ",", "ran" are not in the vocabulary
  CHECK(s.score.loss == doctest::Approx(nll / static_cast<double>(n - 1)).epsilon(1e-6));
  CHECK(s.score.ppl() == doctest::Approx(std::exp(nll / static_cast<double>(n - 1))).epsilon(1e-6));
  // Evenly spaced full windows when max_tokens is smaller than the text.
  auto w = train::lm_eval_windows(n, 8, 16);
  CHECK(w.size() == 2);
  CHECK(w[0].start == 0);
  CHECK(w[1].len == 8);
  train::EncodedText e = train::encode_text(*tok, "the zebra and the yak");
  CHECK(e.unknown == std::vector<std::string>{"zebra", "yak"});
}

TEST_CASE("kjv corpus: character tokenizer with chapter:verse references, a char kjv-lm saves and loads") {
  if (!have_kjv()) return;
  auto c = std::make_shared<const KjvCorpus>(make_kjv_corpus(verses(), {.tokenizer = "char", .references = true}));
  REQUIRE(c->tokenizer->kind() == "char");
  CHECK(c->tokenizer->vocab_size() < 100);  // letters, digits, punctuation, space
  CHECK(c->train_distinct == c->tokenizer->vocab_size() - 1);
  const std::string head = c->train.size() ? c->tokenizer->decode_tensor(narrow(c->train.tokens, 0, 0, 40)) : "";
  CHECK(head.starts_with("1:1 In the beginning God created"));
  // Digits and ':' occur only in references: no decimal number, no minus before a digit.
  const std::string train = c->tokenizer->decode_tensor(c->train.tokens);
  for (size_t i = 1; i + 1 < train.size(); ++i) {
    const bool digit_before = std::isdigit(static_cast<unsigned char>(train[i - 1]));
    const bool digit_after = std::isdigit(static_cast<unsigned char>(train[i + 1]));
    if ((train[i] == '.' && digit_before && digit_after) || (train[i] == '-' && digit_after)) {
      FAIL("a number in the KJV text at " << i << ": " << train.substr(i - 1, 3));
      break;
    }
  }
  CHECK(throws_with([] { make_kjv_corpus(verses(), {.tokenizer = "bpe"}); }, {"[make_kjv_corpus]", "bpe"}));

  ScratchDir dir;
  train::Json config = tiny_config("softmax", 3);
  train::apply_override(config, "tokenizer=char");
  train::apply_override(config, "references=true");
  train::KjvLmTask task(config, Device::cpu(), c);
  CHECK(task.gpt().config.vocab_size == c->tokenizer->vocab_size());
  train::Trainer trainer(task, train::kKjvLmTask, config, dir.str() + "/run");
  trainer.log = nullptr;
  trainer.fit();
  task.gpt().eval();
  Tensor ids = reshape(task.tokenizer().encode_tensor("3:16 For God"), {1, -1});
  NoGradGuard no_grad;
  const std::vector<double> expected = task.gpt().forward(ids).to_vector();
  train::save_language_model(dir.str() + "/model", task.gpt(), task.tokenizer(), task.config());
  // The checkpoint rebuilds its tokenizer from the config's corpus options (char, references).
  for (const std::string& path : {dir.str() + "/model", dir.str() + "/run/checkpoint_last.safetensors"}) {
    CAPTURE(path);
    train::LanguageModel lm = train::load_language_model(path);
    CHECK(lm.tokenizer->kind() == "char");
    CHECK(lm.tokenizer->vocab() == task.tokenizer().vocab());
    CHECK(lm.gpt->forward(ids).to_vector() == expected);
  }
  train::apply_override(config, "tokenizer=bpe");
  CHECK(throws_with([&] { train::kjv_lm_corpus_options(config); }, {"[kjv-lm]", "bpe"}));
}
