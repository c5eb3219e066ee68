// Op table entries for ops/reduce.h (cumsum and sum_to included). A "dim" of null (the
// default of sum, mean, ...) reduces every dim; max/min give the values (argmax/argmin the indices).
#include "harmonic/ops/reduce.h"

#include "harmonic/ops/registry/registry.h"

namespace hm::ops {
namespace {

using V = const std::vector<Tensor>&;
using A = const Attrs&;

}  // namespace

void add_reduce_ops(std::vector<OpSpec>& t) {
  FamilyTable R{t, "reduce"};
  const char* D = R"({"dim": null, "keepdim": false})";
  const char* D1 = R"({"dim": -1, "keepdim": false})";
  R("sum", "x", D, [](V x, A a) { return sum(x[0], a.dims("dim"), a.b("keepdim")); })
      .ex("2x3x4", R"({"dim": [0, 2]})")
      .accepts(kProbeIntDtype);
  R("mean", "x", D, [](V x, A a) { return mean(x[0], a.dims("dim"), a.b("keepdim")); }).ex("2x3x4");
  R("amax", "x", D, [](V x, A a) { return amax(x[0], a.dims("dim"), a.b("keepdim")); })
      .ex("2x3x4", R"({"dim": 1})")
      .accepts(kProbeIntDtype);
  R("amin", "x", D, [](V x, A a) { return amin(x[0], a.dims("dim"), a.b("keepdim")); })
      .ex("2x3x4")
      .accepts(kProbeIntDtype);
  // max/min along one dim: the values (argmax/argmin give the indices)
  R("max", "x", D1, [](V x, A a) { return max(x[0], a.i("dim"), a.b("keepdim")).values; }).accepts(kProbeIntDtype);
  R("min", "x", D1, [](V x, A a) { return min(x[0], a.i("dim"), a.b("keepdim")).values; })
      .ex("3x4", R"({"dim": 0})")
      .accepts(kProbeIntDtype);
  R("argmax", "x", D1, [](V x, A a) { return argmax(x[0], a.i("dim"), a.b("keepdim")); }).accepts(kProbeIntDtype);
  R("argmin", "x", D1, [](V x, A a) { return argmin(x[0], a.i("dim"), a.b("keepdim")); }).accepts(kProbeIntDtype);
  const char* VD = R"({"dim": null, "correction": 1, "keepdim": false})";
  R("var", "x", VD, [](V x, A a) {
    return var(x[0], a.dims("dim"), a.i("correction"), a.b("keepdim"));
  }).ex("3x4", R"({"dim": 1})");
  R("std", "x", VD, [](V x, A a) { return std(x[0], a.dims("dim"), a.i("correction"), a.b("keepdim")); });
  R("logsumexp", "x", D1, [](V x, A a) { return logsumexp(x[0], a.dims("dim"), a.b("keepdim")); });
  R("norm", "x", R"({"p": 2.0, "dim": null, "keepdim": false})", [](V x, A a) {
    return norm(x[0], a.f("p"), a.dims("dim"), a.b("keepdim"));
  }).ex("3x4", R"({"p": "inf"})");
  R("cumsum", "x", R"({"dim": -1})", [](V x, A a) { return cumsum(x[0], a.i("dim")); }).accepts(kProbeIntDtype);
  R("sum_to", "x", R"({"shape": null})", [](V x, A a) { return sum_to(x[0], a.shape("shape")); })
      .ex("3x4", R"({"shape": [1, 4]})")
      .accepts(kProbeIntDtype);
}

}  // namespace hm::ops
