// PyTorch's PrivateUse1 hooks for the tpu device: availability, the
// default generator, pinned memory (runtime/host_allocator.cpp), storage
// resizing.
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>

#include "runtime/device.h"

namespace torchtpu {

namespace {

struct TPUHooks final : at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return abi_ready(); }
  // The tpu device draws random numbers from PyTorch's CPU generator, so
  // that a seeded program gives the same numbers on tpu as on CPU.
  const at::Generator& getDefaultGenerator(c10::DeviceIndex) const override {
    return at::detail::getDefaultCPUGenerator();
  }
  at::Generator getNewGenerator(c10::DeviceIndex) const override {
    return at::detail::createCPUGenerator();
  }
  at::Device getDeviceFromPtr(void*) const override { return at::Device(kTPU, 0); }
  bool isPinnedPtr(const void* p) const override { return is_pinned(p); }
  at::Allocator* getPinnedMemoryAllocator() const override { return pinned_allocator(); }
  bool hasPrimaryContext(c10::DeviceIndex) const override { return true; }
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override {
    storage_resize(storage, int64_t(newsize));
  }
};

}  // namespace

void register_hooks() {
  static TPUHooks* the_hooks = nullptr;
  if (!the_hooks) {
    the_hooks = new TPUHooks();
    at::RegisterPrivateUse1HooksInterface(the_hooks);
  }
}

}  // namespace torchtpu
