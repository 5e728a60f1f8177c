/* Types and limits of the C ABI, shared by the cgo preambles of libtorchtpu
 * and inlined into torchtpu.h by genheader. */
#ifndef TT_TYPES_H
#define TT_TYPES_H
#include <stdint.h>
#include <stdlib.h>

// TT_MAX_RANK is the largest tensor rank the ABI accepts.
#define TT_MAX_RANK 16

// tt_tensor describes caller-owned tensor memory. data points at the first
// element (storage offset applied); extent is the number of bytes readable
// from data; dtype is a c10::ScalarType number (6 float32, 4 int64, 11
// bool, 15 bfloat16, ...); strides are in elements (NULL: contiguous).
typedef struct tt_tensor {
	void *data;
	int64_t extent;
	int32_t dtype;
	int32_t ndim;
	const int64_t *shape;
	const int64_t *strides;
} tt_tensor;

// tt_host_parallel_fn is a host's parallel-for (tt_set_host_parallel):
// call body(ctx) on up to n of the host's threads at once, the calling
// thread included, and return 0 once every call has returned, or nonzero
// without calling body when no threads can be lent from this thread.
typedef int32_t (*tt_host_parallel_fn)(int64_t n, void (*body)(void *ctx), void *ctx);

// tt_host_threads_fn returns the host's thread count.
typedef int32_t (*tt_host_threads_fn)(void);

#endif /* TT_TYPES_H */
