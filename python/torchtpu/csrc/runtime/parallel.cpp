// One pool of threads per process: the engine's parallel loops run on
// PyTorch's intra-op threads (at::parallel_for) instead of its own helper
// goroutines. Two pools on the same cores each spin after their loops
// while the other wants the cores; with one, the engine follows
// torch.set_num_threads too.
#include <ATen/Parallel.h>

#include "runtime/abi.h"

namespace torchtpu {

namespace {

// host_run is tt_host_parallel_fn: body(ctx) on up to n of PyTorch's
// threads. Each call of body takes the loop's indexes until none is left,
// so handing it the range [0, n) split as at::parallel_for likes is right
// whatever the split. Inside one of PyTorch's parallel regions it declines
// (the engine's helpers run the nested loop).
int32_t host_run(int64_t n, void (*body)(void*), void* ctx) {
  if (n < 1 || at::in_parallel_region()) return 1;
  at::parallel_for(0, n, 1, [&](int64_t, int64_t) { body(ctx); });
  return 0;
}

int32_t host_threads() { return static_cast<int32_t>(at::get_num_threads()); }

}  // namespace

bool install_host_parallel() {
  if (!abi.set_host_parallel) return false;
  char* err = nullptr;
  int32_t rc = abi.set_host_parallel(host_run, host_threads, &err);
  if (err) abi.string_free(err);
  return rc == 0;
}

}  // namespace torchtpu

// ttx_host_parallel lends PyTorch's threads to the engine (on != 0) or
// gives the engine its own helpers back (on == 0), for comparisons in one
// process (tools/bench). Returns 0, or -1 when the library refuses.
extern "C" __attribute__((visibility("default"))) int ttx_host_parallel(int on) {
  using namespace torchtpu;
  if (!abi_ready() || !abi.set_host_parallel) return -1;
  if (on) return install_host_parallel() ? 0 : -1;
  char* err = nullptr;
  int32_t rc = abi.set_host_parallel(nullptr, nullptr, &err);
  if (err) abi.string_free(err);
  return rc == 0 ? 0 : -1;
}
