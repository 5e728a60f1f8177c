// The engine's parallel loops inside PyTorch run on PyTorch's intra-op
// threads (at::parallel_for), one pool for the process. A run called from
// PyTorch asks for the threads once: one thread runs the program, the others
// serve as its loops' helpers until it ends (TORCHTPU_HOST_THREADS=1: loop
// by loop instead; =0: the engine's own helper threads, split for
// torch.get_num_threads()). Measured on 2 cores, after eager steps in the
// same process (the benchmarks' round-robin, or a training loop's optimizer
// step): GPT-2 inference 12.1 ms with the engine's own helpers, 9.0 lent
// loop by loop, 7.7 lent per run (eager 7.1); GPT-2 training 37.8 -> 34.0
// ms; ResNet-18 inference 27.9 -> 23.8 ms (eager 26.5). PyTorch's OpenMP
// threads spin for a while after each of its parallel regions: lent per run,
// the threads that would spin do the engine's work, and no other thread
// competes for the cores. The team is OpenMP's: this file is compiled with
// -fopenmp (device/_ext.py), without which at::parallel_for's team, a
// template compiled into the caller, runs on the calling thread alone.
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
