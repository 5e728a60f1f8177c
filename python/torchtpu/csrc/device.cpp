// The tpu device's runtime inside PyTorch: the engine ABI resolved from the
// loaded libtorchtpu, the storage allocator, PrivateUse1 hooks and the
// device guard (one device; streams and events on the engine's queue).
#include "device.h"

#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace torchtpu {

Abi abi;
static std::atomic<bool> ready{false};
static std::atomic<bool> exiting{false};

bool abi_ready() { return ready.load(std::memory_order_acquire); }

void check(int64_t rc, char* err, const char* what) {
  if (rc >= 0) return;
  std::string msg = err ? std::string(err) : std::string(what) + " failed";
  if (err && abi.string_free) abi.string_free(err);
  TORCH_CHECK(false, msg);
}

// ---- storage ------------------------------------------------------------

// Addresses handed out as tpu data pointers: unique and never reused, so
// that data_ptr() comparisons (aliasing checks) behave; never dereferenced.
static std::atomic<uint64_t> next_addr{uint64_t(1) << 44};

static void* new_addr(int64_t nbytes) {
  uint64_t n = (uint64_t(nbytes > 0 ? nbytes : 1) + 511) & ~uint64_t(255);
  return reinterpret_cast<void*>(next_addr.fetch_add(n));
}

static void delete_buffer(void* ctx) {
  uint64_t h = reinterpret_cast<uint64_t>(ctx);
  if (h == 0 || exiting.load() || !abi_ready()) return;
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

void put_tensor(std::vector<int64_t>& w, const at::Tensor& t) {
  w.push_back(kTensor);
  w.push_back(int64_t(handle(t)));
  w.push_back(int64_t(t.scalar_type()));
  w.push_back(t.dim());
  w.push_back(t.storage_offset());
  for (auto s : t.sizes()) w.push_back(s);
  for (auto s : t.strides()) w.push_back(s);
}

// raw_dtype is a dtype the engine stores whose elements have t's size, for
// moving bytes of a dtype the engine does not compute with (complex32, ...).
static int64_t raw_dtype(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kComplexHalf:
    case at::kQInt8:
    case at::kQUInt8:
    case at::kQInt32:
    case at::kQUInt4x2:
    case at::kQUInt2x4:
      break;
    default:
      if (int64_t(t.scalar_type()) < 30 && !(int64_t(t.scalar_type()) >= 16 && int64_t(t.scalar_type()) <= 22))
        return int64_t(t.scalar_type());
  }
  switch (t.element_size()) {
    case 1:
      return int64_t(at::kByte);
    case 2:
      return int64_t(at::kShort);
    case 4:
      return int64_t(at::kInt);
    case 8:
      return int64_t(at::kLong);
    default:
      return int64_t(at::kComplexDouble);
  }
}

static void put_raw(std::vector<int64_t>& w, const at::Tensor& t) {
  put_tensor(w, t);
  w[2] = raw_dtype(t);
}

void read_tensor(const at::Tensor& t, void* dst, int64_t nbytes) {
  std::vector<int64_t> w;
  put_raw(w, t);
  char* err = nullptr;
  int64_t rc = abi.tensor_read(w.data(), int32_t(w.size()), dst, nbytes, &err);
  check(rc, err, "tt_tensor_read");
}

void write_tensor(const at::Tensor& t, const void* src, int64_t nbytes) {
  std::vector<int64_t> w;
  put_raw(w, t);
  char* err = nullptr;
  int64_t rc = abi.tensor_write(w.data(), int32_t(w.size()), src, nbytes, &err);
  check(rc, err, "tt_tensor_write");
}

// ---- hooks and guard ----------------------------------------------------

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
    if (event && abi_ready() && !exiting.load()) abi.event_release(reinterpret_cast<uint64_t>(event));
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

static TPUHooks* the_hooks = nullptr;

template <typename F>
static bool resolve(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

}  // namespace torchtpu

using namespace torchtpu;

extern "C" {

// ttx_init resolves the engine's C ABI from the already loaded library at
// path and registers the device's hooks. It returns 0, or -1 with a
// message in msg (cap bytes).
__attribute__((visibility("default"))) int ttx_init(const char* path, int32_t abi_version, char* msg, int cap) {
  auto fail = [&](const std::string& s) {
    std::snprintf(msg, size_t(cap), "%s", s.c_str());
    return -1;
  };
  if (abi_ready()) return 0;
  void* lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (!lib) lib = dlopen(path, RTLD_NOW);
  if (!lib) return fail(std::string("dlopen ") + path + ": " + dlerror());
  bool ok = resolve(lib, "tt_abi_version", abi.abi_version) && resolve(lib, "tt_string_free", abi.string_free) &&
            resolve(lib, "tt_free", abi.free) && resolve(lib, "tt_buffer_new", abi.buffer_new) &&
            resolve(lib, "tt_buffer_resize", abi.buffer_resize) &&
            resolve(lib, "tt_tensor_write", abi.tensor_write) && resolve(lib, "tt_tensor_read", abi.tensor_read) &&
            resolve(lib, "tt_op_id", abi.op_id) && resolve(lib, "tt_op_call", abi.op_call) &&
            resolve(lib, "tt_device_synchronize", abi.device_synchronize) &&
            resolve(lib, "tt_event_record", abi.event_record) && resolve(lib, "tt_event_query", abi.event_query) &&
            resolve(lib, "tt_event_wait", abi.event_wait) && resolve(lib, "tt_event_elapsed", abi.event_elapsed) &&
            resolve(lib, "tt_event_release", abi.event_release) &&
            resolve(lib, "tt_set_host_parallel", abi.set_host_parallel);
  if (!ok) return fail(std::string("libtorchtpu at ") + path + " lacks a device function: rebuild it");
  if (abi.abi_version() != abi_version)
    return fail("libtorchtpu has another C ABI version than the package: rebuild it");
  if (!the_hooks) {
    the_hooks = new TPUHooks();
    at::RegisterPrivateUse1HooksInterface(the_hooks);
  }
  if (!std::getenv("TORCHTPU_OWN_THREADS") && !install_host_parallel())
    return fail("libtorchtpu refused PyTorch's thread pool");
  std::atexit([] { exiting.store(true); });
  ready.store(true, std::memory_order_release);
  return 0;
}

}  // extern "C"
