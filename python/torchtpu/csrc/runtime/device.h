// The tpu device's runtime inside PyTorch (PrivateUse1): storage in engine
// buffers, tensors as the engine's argument words, hooks.
#pragma once

#include <ATen/ATen.h>
#include <c10/core/Allocator.h>

#include <cstdint>
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

// register_hooks installs the device's PrivateUse1 hooks (once).
void register_hooks();

}  // namespace torchtpu
