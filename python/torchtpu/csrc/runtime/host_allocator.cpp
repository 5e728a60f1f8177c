// Pinned host memory for the tpu device: what tensor.pin_memory() and a
// DataLoader with pin_memory=True allocate (PyTorch asks the device's
// hooks). The engine copies host bytes into its buffers when a copy is
// enqueued, so pinning buys no transfer speed here; the memory is ordinary
// aligned host memory, and is_pinned() says true for it, as for CUDA's.
#include <c10/core/CPUAllocator.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "runtime/device.h"

namespace torchtpu {
namespace {

std::mutex pinned_mu;
std::unordered_set<const void*> pinned;

void free_pinned(void* p) {
  if (!p) return;
  {
    std::lock_guard<std::mutex> lock(pinned_mu);
    pinned.erase(p);
  }
  std::free(p);
}

struct PinnedAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) override {
    void* p = nullptr;
    if (n > 0) {
      TORCH_CHECK(posix_memalign(&p, 64, n) == 0, "torchtpu: out of host memory allocating ", n,
                  " pinned bytes");
      std::lock_guard<std::mutex> lock(pinned_mu);
      pinned.insert(p);
    }
    return {p, p, &free_pinned, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_pinned; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }
};

PinnedAllocator the_pinned_allocator;

}  // namespace

c10::Allocator* pinned_allocator() { return &the_pinned_allocator; }

bool is_pinned(const void* p) {
  if (!p) return false;
  std::lock_guard<std::mutex> lock(pinned_mu);
  return pinned.count(p) > 0;
}

}  // namespace torchtpu
