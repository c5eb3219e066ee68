// Op table entries for ops/shape_ops.h: views, copies, joins and splits. Multi-output ops
// (split, chunk) take an "index" choosing the output.
#include <limits>

#include "harmonic/ops/registry/registry.h"
#include "harmonic/ops/shape_ops.h"

namespace hm::ops {
namespace {

using V = const std::vector<Tensor>&;
using A = const Attrs&;

// Output `index` of a multi-output op, with an error naming the count.
Tensor pick(const std::vector<Tensor>& outs, A a, const char* op) {
  int64_t k = a.i("index"), n = static_cast<int64_t>(outs.size());
  check(k >= 0 && k < n, fmt::format("op {}", op), "attribute 'index' = {} is out of range: {} produced {} outputs", k,
        op, n);
  return outs[static_cast<size_t>(k)];
}

// split_size is one size (equal chunks) or a list of sizes.
std::vector<Tensor> split_by(const Tensor& x, A a) {
  if (a.json().at("split_size").is_array()) return split(x, a.shape("split_size"), a.i("dim"));
  return split(x, a.i("split_size"), a.i("dim"));
}

}  // namespace

void add_shape_ops(std::vector<OpSpec>& t) {
  FamilyTable S{t, "shape"};
  S("reshape", "x", R"({"shape": null})", [](V x, A a) { return reshape(x[0], a.shape("shape")); })
      .ex("3x4", R"({"shape": [4, -1]})")
      .accepts(kProbeIntDtype);
  S("view", "x", R"({"shape": null})", [](V x, A a) { return view(x[0], a.shape("shape")); })
      .ex("3x4", R"({"shape": [12]})")
      .accepts(kProbeIntDtype);
  S("flatten", "x", R"({"start_dim": 0, "end_dim": -1})",
    [](V x, A a) { return flatten(x[0], a.i("start_dim"), a.i("end_dim")); })
      .ex("2x3x4")
      .accepts(kProbeIntDtype);
  S("permute", "x", R"({"dims": null})", [](V x, A a) { return permute(x[0], a.shape("dims")); })
      .ex("2x3x4", R"({"dims": [1, 2, 0]})")
      .accepts(kProbeIntDtype);
  S("transpose", "x", R"({"dim0": 0, "dim1": 1})", [](V x, A a) {
    return transpose(x[0], a.i("dim0"), a.i("dim1"));
  }).accepts(kProbeIntDtype);
  S("expand", "x", R"({"shape": null})", [](V x, A a) { return expand(x[0], a.shape("shape")); })
      .ex("3x1", R"({"shape": [2, 3, 4]})")
      .accepts(kProbeIntDtype);
  S("broadcast_to", "x", R"({"shape": null})", [](V x, A a) { return broadcast_to(x[0], a.shape("shape")); })
      .ex("4", R"({"shape": [3, 4]})")
      .accepts(kProbeIntDtype);
  S("squeeze", "x", R"({"dim": null})",
    [](V x, A a) { return a.is_null("dim") ? squeeze(x[0]) : squeeze(x[0], a.i("dim")); })
      .ex("3x1x4")
      .accepts(kProbeIntDtype);
  S("unsqueeze", "x", R"({"dim": 0})", [](V x, A a) { return unsqueeze(x[0], a.i("dim")); })
      .ex("3x4", R"({"dim": -1})")
      .accepts(kProbeIntDtype);
  S("slice", "x", R"({"dim": 0, "start": 0, "end": null, "step": 1})",
    [](V x, A a) {
      int64_t end = a.is_null("end") ? std::numeric_limits<int64_t>::max() : a.i("end");
      return slice(x[0], a.i("dim"), a.i("start"), end, a.i("step"));
    })
      .ex("5x4", R"({"start": 1, "step": 2})")
      .accepts(kProbeIntDtype);
  S("narrow", "x", R"({"dim": 0, "start": 0, "length": null})",
    [](V x, A a) { return narrow(x[0], a.i("dim"), a.i("start"), a.i("length")); })
      .ex("5x4", R"({"dim": 1, "start": 1, "length": 2})")
      .accepts(kProbeIntDtype);
  S("select", "x", R"({"dim": 0, "index": 0})", [](V x, A a) { return select(x[0], a.i("dim"), a.i("index")); })
      .ex("5x4", R"({"index": -1})")
      .accepts(kProbeIntDtype);
  S("cat", "xs*", R"({"dim": 0})", [](V x, A a) { return cat(x, a.i("dim")); }).ex("2x4,3x4");
  S("stack", "xs*", R"({"dim": 0})", [](V x, A a) { return stack(x, a.i("dim")); }).ex("3x4,3x4,3x4", R"({"dim": 2})");
  S("split", "x", R"({"split_size": null, "dim": 0, "index": 0})",
    [](V x, A a) { return pick(split_by(x[0], a), a, "split"); })
      .ex("5x4", R"({"split_size": 2})")
      .accepts(kProbeIntDtype);
  S("chunk", "x", R"({"chunks": null, "dim": 0, "index": 0})",
    [](V x, A a) { return pick(chunk(x[0], a.i("chunks"), a.i("dim")), a, "chunk"); })
      .ex("5x4", R"({"chunks": 3, "index": 2})")
      .accepts(kProbeIntDtype);
  S("flip", "x", R"({"dims": null})", [](V x, A a) { return flip(x[0], a.shape("dims")); })
      .ex("3x4", R"({"dims": [0, 1]})")
      .accepts(kProbeIntDtype);
  S("pad", "x", R"({"pads": null, "value": 0.0})", [](V x, A a) { return pad(x[0], a.shape("pads"), a.f("value")); })
      .ex("3x4", R"({"pads": [1, 1]})")
      .accepts(kProbeIntDtype);
  S("tril", "x", R"({"diagonal": 0})", [](V x, A a) { return tril(x[0], a.i("diagonal")); })
      .ex("4x4")
      .accepts(kProbeIntDtype);
  S("triu", "x", R"({"diagonal": 0})", [](V x, A a) { return triu(x[0], a.i("diagonal")); })
      .ex("2x4x4", R"({"diagonal": 1})")
      .accepts(kProbeIntDtype);
}

}  // namespace hm::ops
