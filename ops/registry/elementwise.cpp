// Op table entries for ops/elementwise.h: arithmetic, unary math, comparisons and selection.
// Inputs: "x" float differentiable, "~x" float constant, "#x" int64, "!x" bool (registry.h).
#include "harmonic/ops/elementwise.h"

#include "harmonic/ops/registry/registry.h"

namespace hm::ops {
namespace {

using V = const std::vector<Tensor>&;
using A = const Attrs&;

GeluApprox gelu_approx(A a) {
  std::string s = a.s("approximate");
  check(s == "none" || s == "tanh", "op gelu", "attribute 'approximate' must be \"none\" or \"tanh\", got \"{}\"", s);
  return s == "tanh" ? GeluApprox::Tanh : GeluApprox::None;
}

}  // namespace

void add_elementwise_ops(std::vector<OpSpec>& t) {
  FamilyTable F{t, "elementwise"};
  // -- arithmetic: tensor (op) tensor with broadcasting, and tensor (op) scalar ------------------
  F("add", "a b", "{}", [](V x, A) { return add(x[0], x[1]); }).ex("3x4,4");
  F("sub", "a b", "{}", [](V x, A) { return sub(x[0], x[1]); }).ex("3x4,3x1");
  F("mul", "a b", "{}", [](V x, A) { return mul(x[0], x[1]); }).ex("3x4,4");
  F("div", "a b", "{}", [](V x, A) { return div(x[0], x[1]); }).ex("3x4,4");
  F("pow", "a b", "{}", [](V x, A) { return pow(x[0], x[1]); }).ex("3x4,4").positive();
  F("maximum", "a b", "{}", [](V x, A) { return maximum(x[0], x[1]); }).ex("3x4,4");
  F("minimum", "a b", "{}", [](V x, A) { return minimum(x[0], x[1]); }).ex("3x4,4");
  F("add_scalar", "x", R"({"other": 1.0})", [](V x, A a) { return add(x[0], a.f("other")); })
      .fn("add")
      .accepts(kProbeIntDtype);
  F("sub_scalar", "x", R"({"other": 1.0})", [](V x, A a) { return sub(x[0], a.f("other")); })
      .fn("sub")
      .accepts(kProbeIntDtype);
  F("mul_scalar", "x", R"({"other": 2.0})", [](V x, A a) { return mul(x[0], a.f("other")); })
      .fn("mul")
      .accepts(kProbeIntDtype);
  F("div_scalar", "x", R"({"other": 2.0})", [](V x, A a) { return div(x[0], a.f("other")); })
      .fn("div")
      .accepts(kProbeIntDtype);
  F("rsub", "x", R"({"other": 1.0})", [](V x, A a) { return rsub(x[0], a.f("other")); }).accepts(kProbeIntDtype);
  F("pow_scalar", "x", R"({"exponent": 2.0})", [](V x, A a) { return pow(x[0], a.f("exponent")); })
      .ex("3x4", R"({"exponent": 1.5})")
      .positive()
      .fn("pow");

  // -- unary math -----------------------------------------------------------------------------
  F("neg", "x", "{}", [](V x, A) { return neg(x[0]); }).accepts(kProbeIntDtype);
  F("exp", "x", "{}", [](V x, A) { return exp(x[0]); });
  F("log", "x", "{}", [](V x, A) { return log(x[0]); }).positive();
  F("log1p", "x", "{}", [](V x, A) { return log1p(x[0]); }).positive();
  F("sqrt", "x", "{}", [](V x, A) { return sqrt(x[0]); }).positive();
  F("rsqrt", "x", "{}", [](V x, A) { return rsqrt(x[0]); }).positive();
  F("abs", "x", "{}", [](V x, A) { return abs(x[0]); }).accepts(kProbeIntDtype);
  F("sin", "x", "{}", [](V x, A) { return sin(x[0]); });
  F("cos", "x", "{}", [](V x, A) { return cos(x[0]); });
  F("tanh", "x", "{}", [](V x, A) { return tanh(x[0]); });
  F("sigmoid", "x", "{}", [](V x, A) { return sigmoid(x[0]); });
  F("relu", "x", "{}", [](V x, A) { return relu(x[0]); });
  F("gelu", "x", R"({"approximate": "none"})", [](V x, A a) {
    return gelu(x[0], gelu_approx(a));
  }).ex("3x4", R"({"approximate": "tanh"})");
  F("silu", "x", "{}", [](V x, A) { return silu(x[0]); });
  F("softplus", "x", R"({"beta": 1.0, "threshold": 20.0})",
    [](V x, A a) { return softplus(x[0], a.f("beta"), a.f("threshold")); });
  F("clamp", "x", R"({"min": "-inf", "max": "inf"})", [](V x, A a) {
    return clamp(x[0], a.f("min"), a.f("max"));
  }).ex("3x4", R"({"min": -0.5})");
  F("square", "x", "{}", [](V x, A) { return square(x[0]); });

  // -- comparisons and selection (bool results are not differentiable) ------------------------
  F("eq", "~a ~b", "{}", [](V x, A) { return eq(x[0], x[1]); }).ex("3x4,4");
  F("ne", "~a ~b", "{}", [](V x, A) { return ne(x[0], x[1]); }).ex("3x4,4");
  F("lt", "~a ~b", "{}", [](V x, A) { return lt(x[0], x[1]); }).ex("3x4,4");
  F("le", "~a ~b", "{}", [](V x, A) { return le(x[0], x[1]); }).ex("3x4,4");
  F("gt", "~a ~b", "{}", [](V x, A) { return gt(x[0], x[1]); }).ex("3x4,4");
  F("ge", "~a ~b", "{}", [](V x, A) { return ge(x[0], x[1]); }).ex("3x4,4");
  F("eq_scalar", "~x", R"({"other": 0.0})", [](V x, A a) { return eq(x[0], a.f("other")); })
      .fn("eq")
      .accepts(kProbeIntDtype);
  F("lt_scalar", "~x", R"({"other": 0.0})", [](V x, A a) { return lt(x[0], a.f("other")); })
      .fn("lt")
      .accepts(kProbeIntDtype);
  F("gt_scalar", "~x", R"({"other": 0.0})", [](V x, A a) { return gt(x[0], a.f("other")); })
      .fn("gt")
      .accepts(kProbeIntDtype);
  F("logical_not", "!x", "{}", [](V x, A) { return logical_not(x[0]); });
  F("where", "!cond a b", "{}", [](V x, A) { return where(x[0], x[1], x[2]); }).ex("3x4,3x4,4");
  F("masked_fill", "x !mask", R"({"value": 0.0})", [](V x, A a) { return masked_fill(x[0], x[1], a.f("value")); })
      .ex("3x4,4", R"({"value": 2})")
      .accepts(kProbeIntDtype);

  // -- the in-place optimizer updates, applied to a copy (never recorded) ---------------------
  F("add_", "~x ~y", R"({"alpha": 1.0})", [](V x, A a) {
    Tensor out = x[0].clone();
    add_(out, x[1], a.f("alpha"));
    return out;
  }).ex("3x4,4");
  F("mul_", "~x", R"({"scale": 2.0})", [](V x, A a) {
    Tensor out = x[0].clone();
    mul_(out, a.f("scale"));
    return out;
  }).accepts(kProbeIntDtype);
}

}  // namespace hm::ops
