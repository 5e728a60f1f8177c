// The tpu device guard: one device; streams and events on the engine's
// one in-order queue.
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <atomic>

#include "runtime/device.h"

namespace torchtpu {

namespace {

static thread_local c10::StreamId current_stream = 0;
static std::atomic<c10::StreamId> next_stream{1};

struct TPUGuard final : c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return kTPU; }
  c10::Device exchangeDevice(c10::Device d) const override {
    check_device(d);
    return c10::Device(kTPU, 0);
  }
  c10::Device getDevice() const override { return c10::Device(kTPU, 0); }
  void setDevice(c10::Device d) const override { check_device(d); }
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device d) const override {
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kTPU, 0), current_stream);
  }
  c10::Stream getDefaultStream(c10::Device) const override {
    return c10::Stream(c10::Stream::DEFAULT, c10::Device(kTPU, 0));
  }
  c10::Stream getStreamFromGlobalPool(c10::Device d, bool) const override { return getNewStream(d, 0); }
  c10::Stream getNewStream(c10::Device, int) const override {
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kTPU, 0), next_stream.fetch_add(1));
  }
  c10::Stream exchangeStream(c10::Stream s) const override {
    c10::StreamId old = current_stream;
    current_stream = s.id();
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(kTPU, 0), old);
  }
  c10::DeviceIndex deviceCount() const noexcept override { return 1; }

  // Events are marks in the engine's one in-order queue: every stream is
  // that queue, so waiting for an event on another stream needs nothing.
  void record(void** event, const c10::Stream&, const c10::DeviceIndex, const c10::EventFlag) const override {
    if (*event) abi.event_release(reinterpret_cast<uint64_t>(*event));
    char* err = nullptr;
    uint64_t ev = abi.event_record(&err);
    if (ev == 0) check(-1, err, "tt_event_record");
    *event = reinterpret_cast<void*>(ev);
  }
  void block(void*, const c10::Stream&) const override {}
  bool queryEvent(void* event) const override {
    return event == nullptr || abi.event_query(reinterpret_cast<uint64_t>(event)) != 0;
  }
  void destroyEvent(void* event, const c10::DeviceIndex) const noexcept override {
    if (event && abi_ready() && !exiting()) abi.event_release(reinterpret_cast<uint64_t>(event));
  }
  void synchronizeEvent(void* event) const override {
    if (!event) return;
    char* err = nullptr;
    int64_t rc = abi.event_wait(reinterpret_cast<uint64_t>(event), &err);
    check(rc, err, "tt_event_wait");
  }
  double elapsedTime(void* a, void* b, const c10::DeviceIndex) const override {
    TORCH_CHECK(a && b, "torchtpu: both events must be recorded before elapsed_time");
    char* err = nullptr;
    double ms = abi.event_elapsed(reinterpret_cast<uint64_t>(a), reinterpret_cast<uint64_t>(b), &err);
    if (ms < 0) check(-1, err, "tt_event_elapsed");
    return ms;
  }
  bool queryStream(const c10::Stream&) const override {
    char* err = nullptr;
    uint64_t ev = abi.event_record(&err);
    if (ev == 0) check(-1, err, "tt_event_record");
    bool done = abi.event_query(ev) != 0;
    abi.event_release(ev);
    return done;
  }
  void synchronizeStream(const c10::Stream&) const override { synchronizeDevice(0); }
  void synchronizeDevice(const c10::DeviceIndex) const override {
    char* err = nullptr;
    int64_t rc = abi.device_synchronize(&err);
    check(rc, err, "tt_device_synchronize");
  }
  void recordDataPtrOnStream(const c10::DataPtr&, const c10::Stream&) const override {}

 private:
  static void check_device(c10::Device d) {
    TORCH_CHECK(d.type() == kTPU && (d.index() == 0 || d.index() == -1),
                "torchtpu: there is one tpu device (tpu:0), not ", d);
  }
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, TPUGuard);

}  // namespace

C10_REGISTER_GUARD_IMPL(PrivateUse1, TPUGuard);

}  // namespace torchtpu
