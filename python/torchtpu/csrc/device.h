// torchtpu's tpu device inside PyTorch (PrivateUse1): storage in engine
// buffers, kernels that send every aten op to the engine.
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/Allocator.h>

#include <cstdint>
#include <vector>

#include "tt_abi.h"

namespace torchtpu {

constexpr c10::DeviceType kTPU = c10::DeviceType::PrivateUse1;

// The allocator of tpu storages: each allocation is an engine buffer; the
// DataPtr's context is the buffer handle and its pointer a unique address
// that is never dereferenced (tensor data lives in the engine).
c10::Allocator* allocator();

// Pinned host memory (pinned.cpp): the allocator, and whether p was
// allocated by it.
c10::Allocator* pinned_allocator();
bool is_pinned(const void* p);

// handle returns the engine buffer of a tpu tensor's storage (0 for an
// empty storage that has none).
uint64_t handle(const at::Tensor& t);

// new_storage wraps buffer h of nbytes as a tpu storage.
c10::Storage new_storage(uint64_t h, int64_t nbytes);

// storage_resize gives storage nbytes (PyTorch's resize_ of a storage).
void storage_resize(const c10::Storage& storage, int64_t nbytes);

// put_tensor appends the argument words of a tpu tensor (tagTensor).
void put_tensor(std::vector<int64_t>& w, const at::Tensor& t);

// read_tensor copies a tpu tensor into contiguous CPU memory (a sync).
void read_tensor(const at::Tensor& t, void* dst, int64_t nbytes);

// write_tensor copies contiguous CPU memory into a tpu tensor's view.
void write_tensor(const at::Tensor& t, const void* src, int64_t nbytes);

// The boxed kernel that runs every aten op the tpu device does not
// implement in C++: the engine, a view computed with PyTorch's meta kernels,
// or PyTorch's CPU kernel under the fallback policy.
void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// run_engine runs op on the engine (used by copy_ between tpu tensors).
void run_op(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// Fallback policy: true sends ops the engine declines to PyTorch's CPU
// kernels (counted, warned once per op); false raises.
void set_cpu_fallback(bool on);
bool cpu_fallback_enabled();

}  // namespace torchtpu
