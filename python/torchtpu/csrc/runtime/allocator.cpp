// The tpu device's storage: each allocation is an engine buffer; the
// DataPtr's context is the buffer handle and its pointer a unique address
// that is never dereferenced (tensor data lives in the engine).
#include "runtime/device.h"

#include <c10/util/Exception.h>

#include <atomic>

namespace torchtpu {

// Addresses handed out as tpu data pointers: unique and never reused, so
// that data_ptr() comparisons (aliasing checks) behave; never dereferenced.
static std::atomic<uint64_t> next_addr{uint64_t(1) << 44};

static void* new_addr(int64_t nbytes) {
  uint64_t n = (uint64_t(nbytes > 0 ? nbytes : 1) + 511) & ~uint64_t(255);
  return reinterpret_cast<void*>(next_addr.fetch_add(n));
}

static void delete_buffer(void* ctx) {
  uint64_t h = reinterpret_cast<uint64_t>(ctx);
  if (h == 0 || exiting() || !abi_ready()) return;
  char* err = nullptr;
  if (abi.free(h, &err) != 0 && err) abi.string_free(err);
}

static c10::DataPtr data_ptr(uint64_t h, int64_t nbytes) {
  return c10::DataPtr(new_addr(nbytes), reinterpret_cast<void*>(h), &delete_buffer,
                      c10::Device(kTPU, 0));
}

struct TPUAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) override {
    TORCH_CHECK(abi_ready(), "torchtpu: the tpu device is not initialised (import torchtpu)");
    char* err = nullptr;
    uint64_t h = abi.buffer_new(int64_t(n), &err);
    if (h == 0) check(-1, err, "tt_buffer_new");
    return data_ptr(h, int64_t(n));
  }
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
  void copy_data(void*, const void*, std::size_t) const override {
    TORCH_CHECK(false, "torchtpu: tpu storage bytes are not addressable; copy tensors instead");
  }
};

static TPUAllocator the_allocator;
c10::Allocator* allocator() { return &the_allocator; }
REGISTER_ALLOCATOR(kTPU, &the_allocator);

uint64_t handle(const at::Tensor& t) {
  const auto& dp = t.storage().data_ptr();
  if (dp.get_deleter() != &delete_buffer) {
    TORCH_CHECK(t.storage().nbytes() == 0 && dp.get() == nullptr,
                "torchtpu: this tpu tensor's storage was not allocated by torchtpu");
    return 0;
  }
  return reinterpret_cast<uint64_t>(dp.get_context());
}

c10::Storage new_storage(uint64_t h, int64_t nbytes) {
  return c10::Storage(c10::Storage::use_byte_size_t(), nbytes, data_ptr(h, nbytes), &the_allocator,
                      /*resizable=*/true);
}

void storage_resize(const c10::Storage& storage, int64_t nbytes) {
  auto* impl = storage.unsafeGetStorageImpl();
  const auto& dp = impl->data_ptr();
  uint64_t h = dp.get_deleter() == &delete_buffer ? reinterpret_cast<uint64_t>(dp.get_context()) : 0;
  char* err = nullptr;
  if (h == 0) {
    h = abi.buffer_new(nbytes, &err);
    if (h == 0) check(-1, err, "tt_buffer_new");
  } else {
    int64_t rc = abi.buffer_resize(h, nbytes, &err);
    check(rc, err, "tt_buffer_resize");
  }
  // A new address range for the new size; the buffer keeps its handle.
  c10::DataPtr old = impl->set_data_ptr(data_ptr(h, nbytes));
  old.release_context();
  impl->set_nbytes(size_t(nbytes));
}

}  // namespace torchtpu
