// The engine's parallel loops inside PyTorch. By default they run on the
// engine's own helper threads, split for torch.get_num_threads() (so the
// engine follows torch.set_num_threads). TORCHTPU_HOST_THREADS=1 lends
// PyTorch's intra-op threads instead (at::parallel_for), one pool for the
// process. Measured on 2 cores (tools/bench/compile_bench.py --host-threads,
// round-robin in one run): the engine's helpers were faster on ResNet-18
// training (327 against 499 ms per step), ResNet-18 inference (28.6 against
// 42 ms) and GPT-2 training (43 against 51 ms), PyTorch's on GPT-2
// inference (10.3 against 12.1 ms): a loop handed to at::parallel_for
// pays OpenMP's team start and a cgo callback per thread.
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

bool install_host_parallel(bool lend) {
  if (!abi.set_host_parallel) return false;
  char* err = nullptr;
  int32_t rc = abi.set_host_parallel(lend ? host_run : nullptr, host_threads, &err);
  if (err) abi.string_free(err);
  return rc == 0;
}

}  // namespace torchtpu

// ttx_host_parallel lends PyTorch's threads to the engine (on != 0) or
// gives the engine its own helpers back (on == 0, split for PyTorch's
// thread count), for comparisons in one process (tools/bench). Returns 0,
// or -1 when the library refuses.
extern "C" __attribute__((visibility("default"))) int ttx_host_parallel(int on) {
  using namespace torchtpu;
  if (!abi_ready() || !abi.set_host_parallel) return -1;
  return install_host_parallel(on != 0) ? 0 : -1;
}
