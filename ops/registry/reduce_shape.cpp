// Op table entries for ops/reduce.h and ops/shape_ops.h. A "dim" of null (the default of
// sum, mean, ...) reduces every dim. Multi-output ops take an "index" choosing the output.
#include <limits>

#include "ops/reduce.h"
#include "ops/shape_ops.h"
#include "ops/registry/registry.h"

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

void add_reduce_shape_ops(std::vector<OpSpec>& t) {
  const char* R = "reduce";
  const char* D = R"({"dim": null, "keepdim": false})";
  const char* D1 = R"({"dim": -1, "keepdim": false})";
  t.push_back(make_op(R, "sum", "x", D, [](V x, A a) { return sum(x[0], a.dims("dim"), a.b("keepdim")); }));
  t.push_back(make_op(R, "mean", "x", D, [](V x, A a) { return mean(x[0], a.dims("dim"), a.b("keepdim")); }));
  t.push_back(make_op(R, "amax", "x", D, [](V x, A a) { return amax(x[0], a.dims("dim"), a.b("keepdim")); }));
  t.push_back(make_op(R, "amin", "x", D, [](V x, A a) { return amin(x[0], a.dims("dim"), a.b("keepdim")); }));
  // max/min along one dim: the values (argmax/argmin give the indices)
  t.push_back(make_op(R, "max", "x", D1, [](V x, A a) { return max(x[0], a.i("dim"), a.b("keepdim")).values; }));
  t.push_back(make_op(R, "min", "x", D1, [](V x, A a) { return min(x[0], a.i("dim"), a.b("keepdim")).values; }));
  t.push_back(make_op(R, "argmax", "x", D1, [](V x, A a) { return argmax(x[0], a.i("dim"), a.b("keepdim")); }));
  t.push_back(make_op(R, "argmin", "x", D1, [](V x, A a) { return argmin(x[0], a.i("dim"), a.b("keepdim")); }));
  const char* VD = R"({"dim": null, "correction": 1, "keepdim": false})";
  t.push_back(
      make_op(R, "var", "x", VD, [](V x, A a) { return var(x[0], a.dims("dim"), a.i("correction"), a.b("keepdim")); }));
  t.push_back(
      make_op(R, "std", "x", VD, [](V x, A a) { return std(x[0], a.dims("dim"), a.i("correction"), a.b("keepdim")); }));
  t.push_back(
      make_op(R, "logsumexp", "x", D1, [](V x, A a) { return logsumexp(x[0], a.dims("dim"), a.b("keepdim")); }));
  t.push_back(make_op(R, "norm", "x", R"({"p": 2.0, "dim": null, "keepdim": false})",
                      [](V x, A a) { return norm(x[0], a.f("p"), a.dims("dim"), a.b("keepdim")); }));
  t.push_back(make_op(R, "cumsum", "x", R"({"dim": -1})", [](V x, A a) { return cumsum(x[0], a.i("dim")); }));
  t.push_back(make_op(R, "sum_to", "x", R"({"shape": null})", [](V x, A a) { return sum_to(x[0], a.shape("shape")); }));

  const char* S = "shape";
  t.push_back(
      make_op(S, "reshape", "x", R"({"shape": null})", [](V x, A a) { return reshape(x[0], a.shape("shape")); }));
  t.push_back(make_op(S, "view", "x", R"({"shape": null})", [](V x, A a) { return view(x[0], a.shape("shape")); }));
  t.push_back(make_op(S, "flatten", "x", R"({"start_dim": 0, "end_dim": -1})",
                      [](V x, A a) { return flatten(x[0], a.i("start_dim"), a.i("end_dim")); }));
  t.push_back(make_op(S, "permute", "x", R"({"dims": null})", [](V x, A a) { return permute(x[0], a.shape("dims")); }));
  t.push_back(make_op(S, "transpose", "x", R"({"dim0": 0, "dim1": 1})",
                      [](V x, A a) { return transpose(x[0], a.i("dim0"), a.i("dim1")); }));
  t.push_back(make_op(S, "expand", "x", R"({"shape": null})", [](V x, A a) { return expand(x[0], a.shape("shape")); }));
  t.push_back(make_op(S, "broadcast_to", "x", R"({"shape": null})",
                      [](V x, A a) { return broadcast_to(x[0], a.shape("shape")); }));
  t.push_back(make_op(S, "squeeze", "x", R"({"dim": null})",
                      [](V x, A a) { return a.is_null("dim") ? squeeze(x[0]) : squeeze(x[0], a.i("dim")); }));
  t.push_back(make_op(S, "unsqueeze", "x", R"({"dim": 0})", [](V x, A a) { return unsqueeze(x[0], a.i("dim")); }));
  t.push_back(make_op(S, "slice", "x", R"({"dim": 0, "start": 0, "end": null, "step": 1})", [](V x, A a) {
    int64_t end = a.is_null("end") ? std::numeric_limits<int64_t>::max() : a.i("end");
    return slice(x[0], a.i("dim"), a.i("start"), end, a.i("step"));
  }));
  t.push_back(make_op(S, "narrow", "x", R"({"dim": 0, "start": 0, "length": null})",
                      [](V x, A a) { return narrow(x[0], a.i("dim"), a.i("start"), a.i("length")); }));
  t.push_back(make_op(S, "select", "x", R"({"dim": 0, "index": 0})",
                      [](V x, A a) { return select(x[0], a.i("dim"), a.i("index")); }));
  t.push_back(make_op(S, "cat", "xs*", R"({"dim": 0})", [](V x, A a) { return cat(x, a.i("dim")); }));
  t.push_back(make_op(S, "stack", "xs*", R"({"dim": 0})", [](V x, A a) { return stack(x, a.i("dim")); }));
  t.push_back(make_op(S, "split", "x", R"({"split_size": null, "dim": 0, "index": 0})",
                      [](V x, A a) { return pick(split_by(x[0], a), a, "split"); }));
  t.push_back(make_op(S, "chunk", "x", R"({"chunks": null, "dim": 0, "index": 0})",
                      [](V x, A a) { return pick(chunk(x[0], a.i("chunks"), a.i("dim")), a, "chunk"); }));
  t.push_back(make_op(S, "flip", "x", R"({"dims": null})", [](V x, A a) { return flip(x[0], a.shape("dims")); }));
  t.push_back(make_op(S, "pad", "x", R"({"pads": null, "value": 0.0})",
                      [](V x, A a) { return pad(x[0], a.shape("pads"), a.f("value")); }));
  t.push_back(make_op(S, "tril", "x", R"({"diagonal": 0})", [](V x, A a) { return tril(x[0], a.i("diagonal")); }));
  t.push_back(make_op(S, "triu", "x", R"({"diagonal": 0})", [](V x, A a) { return triu(x[0], a.i("diagonal")); }));
}

}  // namespace hm::ops
