// The tpu device in PyTorch's legacy profiler mode
// (torch.autograd.profiler.profile(use_device="tpu"), use_kineto=False):
// PyTorch records a device event where each op starts and ends and takes
// the time between them as the op's device time. Events are marks in the
// engine's one in-order queue (as for torch.Event), so the time between
// two is the device time of the work enqueued between them. The Kineto
// path (activity_profiler.cpp) times each task itself and is the one
// torch.profiler.profile uses.
#include <c10/util/ApproximateClock.h>
#include <torch/csrc/profiler/stubs/base.h>

#include "runtime/abi.h"

namespace torchtpu {
namespace {

struct TPUProfilerStubs final : torch::profiler::impl::ProfilerStubs {
  void record(c10::DeviceIndex* device, torch::profiler::impl::ProfilerVoidEventStub* event,
              int64_t* cpu_ns) const override {
    if (device) *device = 0;
    char* err = nullptr;
    uint64_t ev = abi.event_record(&err);
    if (ev == 0) check(-1, err, "tt_event_record");
    *event = std::shared_ptr<void>(reinterpret_cast<void*>(ev), [](void* p) {
      if (abi_ready() && !exiting()) abi.event_release(reinterpret_cast<uint64_t>(p));
    });
    if (cpu_ns) *cpu_ns = c10::getTime();
  }

  float elapsed(const torch::profiler::impl::ProfilerVoidEventStub* a,
                const torch::profiler::impl::ProfilerVoidEventStub* b) const override {
    if (!a || !*a || !b || !*b) return 0;
    char* err = nullptr;
    double ms = abi.event_elapsed(reinterpret_cast<uint64_t>(a->get()), reinterpret_cast<uint64_t>(b->get()), &err);
    if (ms < 0) check(-1, err, "tt_event_elapsed");
    return float(ms * 1000.0);  // microseconds
  }

  void mark(const char*) const override {}
  void rangePush(const char*) const override {}
  void rangePop() const override {}
  bool enabled() const override { return abi_ready(); }
  void onEachDevice(std::function<void(int)> op) const override { op(0); }
  void synchronize() const override {
    char* err = nullptr;
    int64_t rc = abi.device_synchronize(&err);
    check(rc, err, "tt_device_synchronize");
  }
};

struct Register {
  Register() {
    static TPUProfilerStubs stubs;
    torch::profiler::impl::registerPrivateUse1Methods(&stubs);
  }
} register_stubs;

}  // namespace
}  // namespace torchtpu
