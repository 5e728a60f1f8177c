// Autocast on the tpu device: torch.autocast("tpu", dtype=torch.bfloat16
// or torch.float16) with PyTorch's cast policy for accelerators, the one
// CUDA uses (ATen/autocast_mode.h's op lists):
//
//  - lower precision: the matmul, convolution, linear, RNN cell and
//    attention family runs in the autocast dtype (bfloat16 unless the
//    program sets another: torchtpu.device sets the default at import);
//  - float32: softmax, log_softmax, norms, losses, the exp/log/pow family,
//    sums and products run in float32 (the *_SET_OPT_DTYPE ops by their
//    dtype argument);
//  - promote: ops of several inputs (addcmul, index_put, ...) run in the
//    widest input dtype;
//  - binary_cross_entropy is refused, as on CUDA (unsafe to autocast;
//    binary_cross_entropy_with_logits is the safe one).
//
// Every other op falls through to the tpu kernels unchanged. The casts
// are ordinary tpu ops (_to_copy), so eager mode and torch.compile (whose
// AOTAutograd trace goes through these kernels) apply the same policy.
#include <ATen/autocast_mode.h>
#include <torch/library.h>

namespace {

using at::Tensor;

Tensor binary_cross_entropy_banned(const Tensor&, const Tensor&, const std::optional<Tensor>&, int64_t) {
  TORCH_CHECK(false,
              "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
              "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
              "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
              "or torch.nn.BCEWithLogitsLoss. binary_cross_entropy_with_logits and BCEWithLogits are\n"
              "safe to autocast.");
}

}  // namespace

TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) { m.fallback(torch::CppFunction::makeFallthrough()); }

// The op lists' signatures name ATen's types unqualified (Tensor, Scalar):
// the registration reads them in at::autocast, as PyTorch's own does.
namespace at::autocast {
namespace {

TORCH_LIBRARY_IMPL(aten, AutocastPrivateUse1, m) {
#define TT_LOWER(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, lower_precision_fp)
#define TT_FP32(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32)
#define TT_FP32_SET_OPT_DTYPE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, fp32_set_opt_dtype)
#define TT_PROMOTE(...) KERNEL_PRIVATEUSEONE(__VA_ARGS__, promote)
  AT_FORALL_LOWER_PRECISION_FP(TT_LOWER)
  AT_FORALL_FP32(TT_FP32)
  AT_FORALL_FP32_SET_OPT_DTYPE(TT_FP32_SET_OPT_DTYPE)
  AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE(KERNEL_DIFFERENT_REDISPATCH_SIGNATURE_PRIVATEUSEONE)
  AT_FORALL_PROMOTE(TT_PROMOTE)
#undef TT_LOWER
#undef TT_FP32
#undef TT_FP32_SET_OPT_DTYPE
#undef TT_PROMOTE
  m.impl(TORCH_SELECTIVE_NAME("aten::binary_cross_entropy"), TORCH_FN(binary_cross_entropy_banned));
}

}  // namespace
}  // namespace at::autocast
