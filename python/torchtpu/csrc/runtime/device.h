// The tpu device's runtime inside PyTorch (PrivateUse1): storage in engine
// buffers, tensors as the engine's argument words, hooks.
#pragma once

#include <ATen/ATen.h>
#include <c10/core/Allocator.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "runtime/abi.h"

namespace torchtpu {

constexpr c10::DeviceType kTPU = c10::DeviceType::PrivateUse1;

// The allocator of tpu storages: each allocation is an engine buffer; the
// DataPtr's context is the buffer handle and its pointer a unique address
// that is never dereferenced (tensor data lives in the engine).
c10::Allocator* allocator();

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

// float_bits returns d's bits (a float argument word).
int64_t float_bits(double d);

// A tensor argument the engine cannot take (a tensor of another device):
// the caller runs the op its own way.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// put_any_tensor appends the argument words of a tensor argument: a tpu
// tensor (tagTensor), a CPU 0-d tensor (tagScalar: its value), another CPU
// tensor (tagHostTensor: its memory, read during the call), or tagNone for
// an undefined one. It throws Unsupported for other devices.
void put_any_tensor(std::vector<int64_t>& w, const at::Tensor& t);

// new_tensor wraps new engine buffer h as a contiguous tpu tensor.
at::Tensor new_tensor(uint64_t h, at::ScalarType dt, c10::IntArrayRef sizes);

// Reader reads the engine's returns (eager/run.go's words): a new
// tensor is [handle dtype ndim sizes...] after its kind word.
struct Reader {
  const int64_t* w;
  int32_t n, pos = 0;
  int64_t next() {
    TORCH_CHECK(pos < n, "torchtpu: the engine's returns end early");
    return w[pos++];
  }
  at::Tensor tensor() {
    uint64_t h = uint64_t(next());
    auto dt = static_cast<at::ScalarType>(next());
    int64_t nd = next();
    TORCH_CHECK(nd >= 0 && nd <= 16 && pos + nd <= n, "torchtpu: bad rank in the engine's returns");
    c10::IntArrayRef sizes(w + pos, size_t(nd));
    pos += int32_t(nd);
    return new_tensor(h, dt, sizes);
  }
};

// The allocator of pinned host memory (tensor.pin_memory()), and whether
// p is the start of one of its allocations.
c10::Allocator* pinned_allocator();
bool is_pinned(const void* p);

// register_hooks installs the device's PrivateUse1 hooks (once).
void register_hooks();

}  // namespace torchtpu
