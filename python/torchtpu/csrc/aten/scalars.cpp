// Python numbers that optimizers change every step, passed as values.
//
// The engine compiles one program per op signature, and a number in a
// Scalar argument (addcdiv's value, add's alpha) is part of the signature: it
// is a constant of the program. Adam's step size changes every step, and an
// LR schedule changes SGD's alpha, so those calls would compile anew each
// step (and a fused training step would never reuse its block). These
// kernels compute such calls with the number as a wrapped scalar tensor in
// a Tensor argument, which the engine passes as a program argument: the
// same formula as PyTorch's CPU kernel (self + value * t1 / t2,
// self + alpha * other), in the call's result dtype.
#include <ATen/native/TypeProperties.h>
#include <torch/library.h>

#include <map>
#include <utility>

#include "aten/aten.h"

namespace torchtpu {
namespace {

at::Tensor wrapped(const at::Scalar& s) {
  at::Tensor t;
  if (s.isComplex()) {
    t = at::scalar_tensor(s, at::device(at::kCPU).dtype(at::kComplexDouble));
  } else if (s.isFloatingPoint()) {
    t = at::scalar_tensor(s, at::device(at::kCPU).dtype(at::kDouble));
  } else if (s.isBoolean()) {
    t = at::scalar_tensor(s, at::device(at::kCPU).dtype(at::kBool));
  } else {
    t = at::scalar_tensor(s, at::device(at::kCPU).dtype(at::kLong));
  }
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

bool floating(at::ScalarType t) { return at::isFloatingType(t) || at::isComplexType(t); }

at::ScalarType result_type3(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c) {
  std::vector<at::Tensor> ts{a, b, c};
  return at::native::result_type(ts);
}

// run runs the op as it came on the engine (the boxed path), returning the
// first result.
template <typename... Args>
at::Tensor run(const char* name, const char* overload, Args&&... args) {
  static thread_local std::map<std::pair<const char*, const char*>, c10::OperatorHandle> handles;
  auto key = std::make_pair(name, overload);
  auto it = handles.find(key);
  if (it == handles.end()) it = handles.emplace(key, c10::Dispatcher::singleton().findSchemaOrThrow(name, overload)).first;
  torch::jit::Stack s{std::forward<Args>(args)...};
  run_op(it->second, &s);
  return s[0].toTensor();
}

bool hoist_value(const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2, const at::Scalar& value,
                 at::ScalarType* dt) {
  *dt = result_type3(self, t1, t2);
  return floating(*dt) && t1.dim() > 0 && t2.dim() > 0 && value.isFloatingPoint();
}

// addcdiv and addcmul: self + value * t1 / t2 (* t2).
at::Tensor pointwise_value(bool div, const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,
                           const at::Scalar& value) {
  at::ScalarType dt;
  if (!hoist_value(self, t1, t2, value, &dt)) return {};
  at::Tensor p = at::mul(t1.to(dt), wrapped(value));
  return div ? at::div(p, t2.to(dt)) : at::mul(p, t2.to(dt));
}

#define VALUE_OP(NAME, DIV)                                                                                        \
  at::Tensor NAME(const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2, const at::Scalar& value) {  \
    at::Tensor q = pointwise_value(DIV, self, t1, t2, value);                                                     \
    if (!q.defined()) return run("aten::" #NAME, "", self, t1, t2, value);                                        \
    return at::add(self, q);                                                                                       \
  }                                                                                                                \
  at::Tensor& NAME##_(at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2, const at::Scalar& value) {    \
    at::Tensor q = pointwise_value(DIV, self, t1, t2, value);                                                     \
    if (!q.defined()) {                                                                                            \
      run("aten::" #NAME "_", "", self, t1, t2, value);                                                           \
      return self;                                                                                                 \
    }                                                                                                              \
    return self.add_(q);                                                                                           \
  }                                                                                                                \
  at::Tensor& NAME##_out(const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,                      \
                         const at::Scalar& value, at::Tensor& out) {                                               \
    at::Tensor q = pointwise_value(DIV, self, t1, t2, value);                                                     \
    if (!q.defined()) {                                                                                            \
      run("aten::" #NAME, "out", self, t1, t2, value, out);                                                       \
      return out;                                                                                                  \
    }                                                                                                              \
    return at::add_out(out, self, q);                                                                              \
  }

VALUE_OP(addcdiv, true)
VALUE_OP(addcmul, false)

// add and sub: self ± alpha * other.
at::Tensor scaled(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  if (!alpha.isFloatingPoint() || alpha.toDouble() == 1.0 || other.dim() == 0) return {};
  auto dt = at::result_type(self, other);
  if (!floating(dt)) return {};
  return at::mul(other.to(dt), wrapped(alpha));
}

#define ALPHA_OP(NAME)                                                                                  \
  at::Tensor NAME(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {          \
    at::Tensor o = scaled(self, other, alpha);                                                         \
    if (!o.defined()) return run("aten::" #NAME, "Tensor", self, other, alpha);                        \
    return at::NAME(self, o);                                                                           \
  }                                                                                                     \
  at::Tensor& NAME##_(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {            \
    at::Tensor o = scaled(self, other, alpha);                                                         \
    if (!o.defined()) {                                                                                 \
      run("aten::" #NAME "_", "Tensor", self, other, alpha);                                           \
      return self;                                                                                      \
    }                                                                                                   \
    return self.NAME##_(o);                                                                             \
  }                                                                                                     \
  at::Tensor& NAME##_out(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha,     \
                         at::Tensor& out) {                                                             \
    at::Tensor o = scaled(self, other, alpha);                                                         \
    if (!o.defined()) {                                                                                 \
      run("aten::" #NAME, "out", self, other, alpha, out);                                             \
      return out;                                                                                       \
    }                                                                                                   \
    return at::NAME##_out(out, self, o);                                                                \
  }

ALPHA_OP(add)
ALPHA_OP(sub)

}  // namespace
}  // namespace torchtpu

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace torchtpu;
  m.impl("addcdiv", TORCH_FN(addcdiv));
  m.impl("addcdiv_", TORCH_FN(addcdiv_));
  m.impl("addcdiv.out", TORCH_FN(addcdiv_out));
  m.impl("addcmul", TORCH_FN(addcmul));
  m.impl("addcmul_", TORCH_FN(addcmul_));
  m.impl("addcmul.out", TORCH_FN(addcmul_out));
  m.impl("add.Tensor", TORCH_FN(add));
  m.impl("add_.Tensor", TORCH_FN(add_));
  m.impl("add.out", TORCH_FN(add_out));
  m.impl("sub.Tensor", TORCH_FN(sub));
  m.impl("sub_.Tensor", TORCH_FN(sub_));
  m.impl("sub.out", TORCH_FN(sub_out));
}
