// The part of libtorchtpu's C ABI (capi/libtorchtpu/torchtpu.h) the device
// extension calls, resolved at run time from the library the Python package
// has loaded (one Go runtime per process: the extension never loads its own).
#pragma once
#include <cstdint>

namespace torchtpu {

struct Abi {
  int32_t (*abi_version)();
  void (*string_free)(char*);
  int32_t (*free)(uint64_t, char**);
  uint64_t (*buffer_new)(int64_t, char**);
  int32_t (*buffer_resize)(uint64_t, int64_t, char**);
  int32_t (*tensor_write)(const int64_t*, int32_t, const void*, int64_t, char**);
  int32_t (*tensor_read)(const int64_t*, int32_t, void*, int64_t, char**);
  int32_t (*op_id)(const char*, const char*, char**);
  int32_t (*op_call)(int32_t, const int64_t*, int32_t, int64_t, int64_t*, int32_t, int32_t*, char**);
  int32_t (*device_synchronize)(char**);
  uint64_t (*event_record)(char**);
  int32_t (*event_query)(uint64_t);
  int32_t (*event_wait)(uint64_t, char**);
  double (*event_elapsed)(uint64_t, uint64_t, char**);
  void (*event_release)(uint64_t);
  int32_t (*set_host_parallel)(int32_t (*)(int64_t, void (*)(void*), void*), int32_t (*)(), char**);
  int32_t (*program_run_device)(uint64_t, const int64_t*, int32_t, int64_t*, int32_t, int32_t*, char**);
  int32_t (*profiler_start)(char**);
  void (*profiler_tag)(uint64_t);
  char* (*profiler_stop)(char**);
  int32_t (*device_empty_cache)(char**);
  int32_t (*memory)(int64_t*, int64_t*, int32_t);
  // tt_bound_run (compiled graphs on CPU tensors, runtime/graph_call.cpp)
  int32_t (*bound_run)(uint64_t, void**, int64_t*, void**, int64_t*, char**);
};

// install_host_parallel sets how the engine's parallel loops run inside
// PyTorch (runtime/parallel.cpp): on PyTorch's intra-op threads (lend) or
// on the engine's own helpers, split for torch.get_num_threads(); false
// when the library refuses.
bool install_host_parallel(bool lend);

// abi is the resolved table; valid once ttx_init succeeded.
extern Abi abi;
bool abi_ready();

// exiting is true once the process is exiting: buffers and events are no
// longer released (the engine may already be gone).
bool exiting();

// check throws a c10::Error with the library's message when rc < 0. Call it
// with the call's result already in a variable: in check(f(&err), err, ...)
// the order the arguments are evaluated in is unspecified.
void check(int64_t rc, char* err, const char* what);

// Argument word tags (eager/args.go).
enum Tag : int64_t {
  kNone = 0, kTensor, kInt, kFloat, kBool, kInts, kDType, kList, kStr, kComplex,
  kFloats, kBools, kScalar, kHostTensor,
};

// Return kinds (eager/plan.go).
enum Ret : int64_t { kRetNone = 0, kRetNew = 1, kRetAlias = 2, kRetList = 3 };

// Call status (eager/run.go).
enum Status : int32_t { kOK = 0, kMiss = 1, kDecline = 2, kResize = 3 };

}  // namespace torchtpu
