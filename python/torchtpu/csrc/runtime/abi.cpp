// The engine's C ABI resolved from the libtorchtpu the Python package has
// loaded (ttx_init), and the errors it returns as c10::Errors.
#include "runtime/abi.h"

#include <c10/util/Exception.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/device.h"

namespace torchtpu {

Abi abi;
static std::atomic<bool> ready{false};
static std::atomic<bool> exiting_{false};

bool abi_ready() { return ready.load(std::memory_order_acquire); }
bool exiting() { return exiting_.load(); }

void check(int64_t rc, char* err, const char* what) {
  if (rc >= 0) return;
  std::string msg = err ? std::string(err) : std::string(what) + " failed";
  if (err && abi.string_free) abi.string_free(err);
  TORCH_CHECK(false, msg);
}

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
            resolve(lib, "tt_set_host_parallel", abi.set_host_parallel) &&
            resolve(lib, "tt_program_run_device", abi.program_run_device) &&
            resolve(lib, "tt_profiler_start", abi.profiler_start) && resolve(lib, "tt_profiler_tag", abi.profiler_tag) &&
            resolve(lib, "tt_profiler_stop", abi.profiler_stop) &&
            resolve(lib, "tt_device_empty_cache", abi.device_empty_cache) && resolve(lib, "tt_memory", abi.memory) &&
            resolve(lib, "tt_bound_run", abi.bound_run);
  if (!ok) return fail(std::string("libtorchtpu at ") + path + " lacks a device function: rebuild it");
  if (abi.abi_version() != abi_version)
    return fail("libtorchtpu has another C ABI version than the package: rebuild it");
  register_hooks();
  const char* lend = std::getenv("TORCHTPU_HOST_THREADS");
  if (!install_host_parallel(!(lend && std::string(lend) == "0")))
    return fail("libtorchtpu refused PyTorch's thread settings");
  std::atexit([] { exiting_.store(true); });
  ready.store(true, std::memory_order_release);
  return 0;
}

}  // extern "C"
