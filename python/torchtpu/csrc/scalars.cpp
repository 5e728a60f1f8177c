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

#include "device.h"

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

// engine runs the op as it came (through the boxed fallback).
template <typename... Args>
at::Tensor& engine(const char* name, const char* overload, at::Tensor& out, Args&&... args) {
  static thread_local std::unordered_map<std::string, c10::OperatorHandle> handles;
  std::string key = std::string(name) + "." + overload;
  auto it = handles.find(key);
  if (it == handles.end())
    it = handles.emplace(key, c10::Dispatcher::singleton().findSchemaOrThrow(name, overload)).first;
  torch::jit::Stack s{std::forward<Args>(args)..., out};
  run_op(it->second, &s);
  return out;
}

at::ScalarType result_type3(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c) {
  std::vector<at::Tensor> ts{a, b, c};
  return at::native::result_type(ts);
}

bool floating(at::ScalarType t) { return at::isFloatingType(t) || at::isComplexType(t); }

at::Tensor& addcdiv_out(const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2, const at::Scalar& value,
                        at::Tensor& out) {
  auto dt = result_type3(self, t1, t2);
  if (!floating(dt) || t1.dim() == 0 || t2.dim() == 0 || !value.isFloatingPoint())
    return engine("aten::addcdiv", "out", out, self, t1, t2, value);
  at::Tensor q = at::div(at::mul(t1.to(dt), wrapped(value)), t2.to(dt));
  return at::add_out(out, self, q);
}

at::Tensor& addcmul_out(const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2, const at::Scalar& value,
                        at::Tensor& out) {
  auto dt = result_type3(self, t1, t2);
  if (!floating(dt) || t1.dim() == 0 || t2.dim() == 0 || !value.isFloatingPoint())
    return engine("aten::addcmul", "out", out, self, t1, t2, value);
  at::Tensor q = at::mul(at::mul(t1.to(dt), wrapped(value)), t2.to(dt));
  return at::add_out(out, self, q);
}

bool hoist_alpha(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  if (!alpha.isFloatingPoint() || alpha.toDouble() == 1.0) return false;
  return floating(at::result_type(self, other)) && other.dim() > 0;
}

at::Tensor& add_out(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha, at::Tensor& out) {
  if (!hoist_alpha(self, other, alpha)) return engine("aten::add", "out", out, self, other, alpha);
  auto dt = at::result_type(self, other);
  return at::add_out(out, self, at::mul(other.to(dt), wrapped(alpha)));
}

at::Tensor& sub_out(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha, at::Tensor& out) {
  if (!hoist_alpha(self, other, alpha)) return engine("aten::sub", "out", out, self, other, alpha);
  auto dt = at::result_type(self, other);
  return at::sub_out(out, self, at::mul(other.to(dt), wrapped(alpha)));
}

}  // namespace
}  // namespace torchtpu

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("addcdiv.out", TORCH_FN(torchtpu::addcdiv_out));
  m.impl("addcmul.out", TORCH_FN(torchtpu::addcmul_out));
  m.impl("add.out", TORCH_FN(torchtpu::add_out));
  m.impl("sub.out", TORCH_FN(torchtpu::sub_out));
}
