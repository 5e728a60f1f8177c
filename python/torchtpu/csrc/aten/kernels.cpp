// The PrivateUse1 kernels the tpu device implements in C++, a minimal set:
// allocation, the metadata ops every backend owns (views share the
// storage), copies to and from the CPU, reading one element. Every other
// aten op reaches the boxed fallback (aten/fallback.cpp).
#include <ATen/EmptyTensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/view_native.h>
#include <torch/library.h>

#include "aten/aten.h"

namespace torchtpu {
namespace {

constexpr c10::DispatchKeySet kKeys(c10::DispatchKey::PrivateUse1);

void check_options(std::optional<c10::Layout> layout, std::optional<c10::Device> device,
                   std::optional<bool> pin_memory) {
  TORCH_CHECK(c10::layout_or_default(layout) == c10::Layout::Strided,
              "torchtpu: only strided tensors live on the tpu device");
  TORCH_CHECK(!c10::pinned_memory_or_default(pin_memory), "torchtpu: pinned memory is a CPU feature");
  auto d = c10::device_or_default(device);
  TORCH_CHECK(d.type() == kTPU && (d.index() <= 0), "torchtpu: there is one tpu device (tpu:0), not ", d);
}

at::Tensor empty(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype, std::optional<c10::Layout> layout,
                 std::optional<c10::Device> device, std::optional<bool> pin_memory,
                 std::optional<c10::MemoryFormat> memory_format) {
  check_options(layout, device, pin_memory);
  return at::detail::empty_generic(size, allocator(), kKeys, c10::dtype_or_default(dtype), memory_format);
}

at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride, std::optional<c10::ScalarType> dtype,
                         std::optional<c10::Layout> layout, std::optional<c10::Device> device,
                         std::optional<bool> pin_memory) {
  check_options(layout, device, pin_memory);
  return at::detail::empty_strided_generic(size, stride, allocator(), kKeys, c10::dtype_or_default(dtype));
}

at::Tensor as_strided(const at::Tensor& self, c10::SymIntArrayRef size, c10::SymIntArrayRef stride,
                      std::optional<c10::SymInt> offset) {
  std::optional<int64_t> off;
  if (offset) off = offset->guard_int(__FILE__, __LINE__);
  return at::native::as_strided_tensorimpl(self, C10_AS_INTARRAYREF_SLOW(size), C10_AS_INTARRAYREF_SLOW(stride),
                                           off);
}

const at::Tensor& as_strided_inplace(const at::Tensor& self, c10::SymIntArrayRef size, c10::SymIntArrayRef stride,
                                     std::optional<c10::SymInt> offset) {
  auto* impl = self.unsafeGetTensorImpl();
  int64_t off = offset ? offset->guard_int(__FILE__, __LINE__) : self.storage_offset();
  impl->set_sizes_and_strides(C10_AS_INTARRAYREF_SLOW(size), C10_AS_INTARRAYREF_SLOW(stride), off);
  return self;
}

at::Tensor view(const at::Tensor& self, c10::SymIntArrayRef size) {
  return at::native::view(self, C10_AS_INTARRAYREF_SLOW(size));
}

at::Tensor reshape_alias(const at::Tensor& self, c10::SymIntArrayRef size, c10::SymIntArrayRef stride) {
  return at::native::_reshape_alias(self, C10_AS_INTARRAYREF_SLOW(size), C10_AS_INTARRAYREF_SLOW(stride));
}

// fit grows the storage of t to hold its view.
void fit(const at::Tensor& t) {
  auto* impl = t.unsafeGetTensorImpl();
  if (t.numel() == 0) return;
  size_t need = at::detail::computeStorageNbytes(impl->sizes(), impl->strides(), t.dtype().itemsize(),
                                                 size_t(impl->storage_offset()));
  if (need > t.storage().nbytes()) storage_resize(t.storage(), int64_t(need));
}

const at::Tensor& resize(const at::Tensor& self, c10::SymIntArrayRef size,
                         std::optional<c10::MemoryFormat> memory_format) {
  auto sizes = C10_AS_INTARRAYREF_SLOW(size);
  for (auto s : sizes) TORCH_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
  auto* impl = self.unsafeGetTensorImpl();
  if (!(self.sizes() == sizes && !memory_format)) {
    impl->set_sizes_contiguous(sizes);
    if (memory_format && *memory_format != c10::MemoryFormat::Preserve)
      impl->empty_tensor_restride(*memory_format);
  }
  fit(self);
  return self;
}

at::Tensor& set_storage(at::Tensor& self, c10::Storage source, int64_t offset, c10::IntArrayRef size,
                        c10::IntArrayRef stride) {
  TORCH_CHECK(source.device().type() == kTPU, "torchtpu: set_ to a storage on ", source.device());
  auto* impl = self.unsafeGetTensorImpl();
  impl->set_storage_keep_dtype(std::move(source));
  impl->set_storage_offset(offset);
  if (stride.empty()) {
    impl->set_sizes_contiguous(size);
  } else {
    impl->set_sizes_and_strides(size, stride);
  }
  fit(self);
  return self;
}

at::Tensor& set_storage_offset(at::Tensor& self, c10::Storage source, c10::SymInt offset, c10::SymIntArrayRef size,
                               c10::SymIntArrayRef stride) {
  return set_storage(self, std::move(source), offset.guard_int(__FILE__, __LINE__), C10_AS_INTARRAYREF_SLOW(size),
                     C10_AS_INTARRAYREF_SLOW(stride));
}

at::Tensor& set_whole_storage(at::Tensor& self, c10::Storage source) {
  int64_t n = int64_t(source.nbytes() / self.dtype().itemsize());
  return set_storage(self, std::move(source), 0, {n}, {});
}

at::Tensor& set_tensor(at::Tensor& self, const at::Tensor& source) {
  if (self.is_same(source)) return self;
  return set_storage(self, source.storage(), source.storage_offset(), source.sizes(), source.strides());
}

at::Tensor& set_empty(at::Tensor& self) {
  c10::Storage s(c10::Storage::use_byte_size_t(), 0, allocator(), true);
  return set_storage(self, std::move(s), 0, {0}, {});
}

// copy_ between devices lands here (PyTorch's copy_ hands tensors of a
// device it does not know to _copy_from): CPU→tpu uploads, tpu→CPU
// downloads, tpu→tpu is the engine's copy_ (dtype conversion and
// broadcasting included).
// logical returns the values a tpu tensor with conjugate or negative bits
// stands for, as a tensor without them.
at::Tensor logical(const at::Tensor& t) {
  at::Tensor v = t;
  if (v.is_conj()) v = at::_conj_physical(v._conj());
  if (v.is_neg()) v = at::neg(v._neg_view());
  return v;
}

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  const at::Tensor& src = self;
  if (dst.numel() == 0) return dst;
  bool src_tpu = src.device().type() == kTPU, dst_tpu = dst.device().type() == kTPU;
  // A destination with conjugate or negative bits stores conj/neg of the
  // values written to it; its raw view takes the stored values.
  bool dst_conj = dst.is_conj(), dst_neg = dst.is_neg();
  at::Tensor raw = dst;
  if (dst_conj) raw = raw._conj();
  if (dst_neg) raw = raw._neg_view();
  if (src.is_cpu() && dst_tpu) {
    at::Tensor s = src.resolve_conj().resolve_neg();
    if (s.sizes() != dst.sizes()) s = s.expand(dst.sizes());
    s = s.to(dst.scalar_type());
    if (dst_conj) s = s.conj();
    if (dst_neg) s = s.neg();
    s = s.resolve_conj().contiguous();
    write_tensor(raw, s.data_ptr(), int64_t(s.nbytes()));
  } else if (src_tpu && dst.is_cpu()) {
    at::Tensor tmp = at::empty(src.sizes(), src.options().device(at::kCPU));
    if (tmp.numel() > 0) read_tensor(src, tmp.data_ptr(), int64_t(tmp.nbytes()));
    if (src.is_conj()) tmp = tmp._conj();
    if (src.is_neg()) tmp = tmp._neg_view();
    dst.copy_(tmp, non_blocking);
  } else if (src_tpu && dst_tpu) {
    at::Tensor s = logical(src);
    if (dst_conj) s = at::conj_physical(s);
    if (dst_neg) s = at::neg(s);
    static auto op = c10::Dispatcher::singleton().findSchemaOrThrow("aten::copy_", "");
    torch::jit::Stack stack{raw, s, non_blocking};
    run_op(op, &stack);
  } else {
    TORCH_CHECK(false, "torchtpu: copy from ", src.device(), " to ", dst.device(), " is not supported");
  }
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  if (dst.sizes() != self.sizes()) dst.resize_(self.sizes());
  return copy_from(self, dst, false);
}

// PyTorch sends convolutions of a backend it does not know to the
// *_overrideable ops; the engine computes them as convolution and
// convolution_backward (whose bias_sizes the overrideable form leaves out).
at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                       c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
                       c10::IntArrayRef output_padding, int64_t groups) {
  static auto op = c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution", "");
  torch::jit::Stack s{input, weight, bias, stride.vec(), padding.vec(), dilation.vec(), transposed,
                      output_padding.vec(), groups};
  run_op(op, &s);
  return s[0].toTensor();
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight, c10::IntArrayRef stride,
    c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed, c10::IntArrayRef output_padding,
    int64_t groups, std::array<bool, 3> output_mask) {
  static auto op = c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution_backward", "");
  std::vector<int64_t> bias_sizes{transposed ? weight.size(1) * groups : weight.size(0)};
  c10::List<bool> mask({output_mask[0], output_mask[1], output_mask[2]});
  torch::jit::Stack s{grad_output, input, weight, bias_sizes, stride.vec(), padding.vec(), dilation.vec(),
                      transposed, output_padding.vec(), groups, mask};
  run_op(op, &s);
  return {s[0].toTensor(), s[1].toTensor(), s[2].toTensor()};
}

at::Scalar local_scalar_dense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() == 1, "a Tensor with ", self.numel(), " elements cannot be converted to Scalar");
  at::Tensor tmp = at::empty({}, self.options().device(at::kCPU));
  read_tensor(self, tmp.data_ptr(), int64_t(tmp.nbytes()));
  return tmp.item();
}

// torch.equal: same sizes and every element equal, computed on the device;
// only the answer comes back.
bool equal(const at::Tensor& self, const at::Tensor& other) {
  TORCH_CHECK(self.device() == other.device(), "Cannot compare two tensors on different devices. Got: ",
              self.device(), " and ", other.device());
  if (self.sizes() != other.sizes()) return false;
  if (self.numel() == 0) return true;
  return at::eq(self, other).all().item().toBool();
}

// Whether `self.data = from` may reuse self's TensorImpl (module.to("tpu")
// does it, keeping each Parameter object and so weights tied by sharing
// one, such as a language model's embedding and output head). PyTorch
// allows it between its built-in dense backends and leaves PrivateUse1 to
// this op: dense CPU and tpu tensors are compatible.
bool has_compatible_shallow_copy_type(const at::Tensor& self, const at::Tensor& from) {
  auto dense = [](const at::Tensor& t) {
    return t.layout() == c10::Layout::Strided && (t.is_cpu() || t.device().type() == kTPU);
  };
  if (dense(self) && dense(from)) return true;
  return self.unsafeGetTensorImpl()->has_compatible_shallow_copy_type(from.key_set());
}

// The engine buffer behind a tpu tensor (tests and debugging).
int64_t buffer_handle(const at::Tensor& t) {
  TORCH_CHECK(t.device().type() == kTPU, "torchtpu: _buffer_handle of a tensor on ", t.device());
  return int64_t(handle(t));
}

}  // namespace
}  // namespace torchtpu

TORCH_LIBRARY(torchtpu, m) { m.def("_buffer_handle(Tensor t) -> int"); }

TORCH_LIBRARY_IMPL(torchtpu, PrivateUse1, m) { m.impl("_buffer_handle", TORCH_FN(torchtpu::buffer_handle)); }

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  using namespace torchtpu;
  m.impl("empty.memory_format", TORCH_FN(empty));
  m.impl("empty_strided", TORCH_FN(empty_strided));
  m.impl("as_strided", TORCH_FN(as_strided));
  m.impl("as_strided_", TORCH_FN(as_strided_inplace));
  m.impl("view", TORCH_FN(view));
  m.impl("_reshape_alias", TORCH_FN(reshape_alias));
  m.impl("resize_", TORCH_FN(resize));
  m.impl("set_.source_Storage", TORCH_FN(set_whole_storage));
  m.impl("set_.source_Storage_storage_offset", TORCH_FN(set_storage_offset));
  m.impl("set_.source_Tensor", TORCH_FN(set_tensor));
  m.impl("set_", TORCH_FN(set_empty));
  m.impl("_copy_from", TORCH_FN(copy_from));
  m.impl("_copy_from_and_resize", TORCH_FN(copy_from_and_resize));
  m.impl("_local_scalar_dense", TORCH_FN(local_scalar_dense));
  m.impl("equal", TORCH_FN(equal));
  m.impl("_has_compatible_shallow_copy_type", TORCH_FN(has_compatible_shallow_copy_type));
  m.impl("convolution_overrideable", TORCH_FN(convolution));
  m.impl("convolution_backward_overrideable", TORCH_FN(convolution_backward));
}

// _copy_from handles conjugate and negative bits itself (PyTorch's conjugate
// fallback would resolve the source with copy_, which comes back here).
TORCH_LIBRARY_IMPL(aten, Conjugate, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}
TORCH_LIBRARY_IMPL(aten, Negative, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&torchtpu::fallback>());
}
