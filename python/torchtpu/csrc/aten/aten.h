// The tpu device's aten kernels: the boxed fallback that sends every aten
// op without a C++ kernel of its own to the engine.
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include "runtime/device.h"

namespace torchtpu {

// The boxed kernel that runs every aten op the tpu device does not
// implement in C++: the engine, a view computed with PyTorch's meta kernels,
// or PyTorch's CPU kernel under the fallback policy.
void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// How an argument whose IValue is an int is meant; Number and Numbers mark
// the Scalar and Scalar[] arguments of the multi-tensor ops (_foreach_*)
// that an optimizer changes (scalar, scalars, alpha, value, weight), passed
// as values (0-d scalars) rather than as part of the signature: a step size
// changes every step.
enum class IntKind : uint8_t { Int, DType, Layout, MemoryFormat, Number, Numbers };

// int_kind says how an argument of type t that holds an int is meant.
IntKind int_kind(const c10::TypePtr& t);

// put appends argument v's words (aten/args.cpp); throws Unsupported for
// a value the engine cannot take.
void put(std::vector<int64_t>& w, const c10::IValue& v, IntKind ik);

// run_op runs op on the engine (used by copy_ between tpu tensors).
void run_op(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// Fallback policy: true sends ops the engine declines to PyTorch's CPU
// kernels (counted, warned once per op); false raises.
void set_cpu_fallback(bool on);
bool cpu_fallback_enabled();

}  // namespace torchtpu
