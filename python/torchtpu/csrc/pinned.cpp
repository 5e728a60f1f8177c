// Pinned host memory of the tpu device (tensor.pin_memory(), DataLoader's
// pin_memory, DDP's used-parameter map): ordinary, aligned host memory
// (the engine reads and writes any host memory), recorded so that
// is_pinned() is true for it, as PyTorch's users of pinned memory check.
#include <c10/core/CPUAllocator.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "device.h"

namespace torchtpu {
namespace {

std::mutex mu;
std::unordered_set<const void*> live;

void release(void* p) {
  {
    std::lock_guard<std::mutex> lock(mu);
    live.erase(p);
  }
  std::free(p);
}

struct PinnedAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) override {
    void* p = nullptr;
    if (n > 0) {
      TORCH_CHECK(posix_memalign(&p, 64, n) == 0, "torchtpu: cannot allocate ", n, " bytes of pinned host memory");
      std::lock_guard<std::mutex> lock(mu);
      live.insert(p);
    }
    return {p, p, &release, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
  void copy_data(void* dst, const void* src, std::size_t n) const override { std::memcpy(dst, src, n); }
};

PinnedAllocator the_pinned;

}  // namespace

c10::Allocator* pinned_allocator() { return &the_pinned; }

bool is_pinned(const void* p) {
  std::lock_guard<std::mutex> lock(mu);
  return live.count(p) > 0;
}

}  // namespace torchtpu
