// The tpu device's storage: each allocation is an engine buffer; the
// DataPtr's context is the buffer handle and its pointer a unique address
// that is never dereferenced (tensor data lives in the engine).
#include "runtime/device.h"

#include <c10/core/CachingDeviceAllocator.h>
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

// A DeviceAllocator, so that torch.accelerator's memory functions
// (memory_allocated, max_memory_allocated, reset_peak_memory_stats,
// empty_cache, memory_stats) reach the engine's counts. The engine caches
// no freed buffers: reserved bytes are the allocated ones.
struct TPUAllocator final : c10::DeviceAllocator {
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

  bool initialized() override { return abi_ready(); }
  void emptyCache(c10::MempoolId_t) override {
    char* err = nullptr;
    int64_t rc = abi.device_empty_cache(&err);
    check(rc, err, "tt_device_empty_cache");
  }
  void recordStream(const c10::DataPtr&, c10::Stream) override {}  // one in-order queue
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex) override {
    c10::CachingDeviceAllocator::DeviceStats st;
    int64_t allocated = 0, peak = 0;
    if (abi_ready()) abi.memory(&allocated, &peak, 0);
    for (auto* s : {&st.allocated_bytes, &st.reserved_bytes, &st.active_bytes, &st.requested_bytes}) {
      auto& agg = (*s)[size_t(c10::CachingAllocator::StatType::AGGREGATE)];
      agg.current = allocated;
      agg.peak = peak;
    }
    return st;
  }
  void resetAccumulatedStats(c10::DeviceIndex) override {}
  void resetPeakStats(c10::DeviceIndex) override {
    if (abi_ready()) abi.memory(nullptr, nullptr, 1);
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
