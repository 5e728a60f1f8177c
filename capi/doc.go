// Package capi is the engine behind torchtpu's C ABI (package
// capi/libtorchtpu, built with -buildmode=c-shared): programs loaded from
// .pt2 bytes, run on tensors described by (pointer, dtype, shape, strides),
// results copied out, metrics, all addressed by opaque handles; and the
// skin of the eager tpu device (package eager, its runtime): the process's
// one device, whose buffers are handles of this package's table
// (EagerDevice).
//
// Everything here is plain Go and testable without cgo. The rules the ABI
// keeps, whatever a caller passes:
//
//   - A handle is a number from a table, never a pointer: a zero, unknown,
//     freed or wrong-kind handle is an error naming it.
//   - Every call runs under Guard: a panic becomes an error message; no Go
//     panic crosses into the host process.
//   - Tensor descriptors are checked before memory is touched: dtype, rank,
//     negative or overflowing dims and strides, and that every element
//     addressed lies inside the byte extent the caller declared.
//   - Input memory is read in place when it is contiguous (no copy) and only
//     during the call; results live in Go memory until copied out or freed.
//
// ABIVersion is bumped on any incompatible change of the exported
// functions or the tensor descriptor. Functions added without changing
// an existing one keep the version (tt_program_run_device, the profiler's
// tt_profiler_*, tt_device_empty_cache, tt_cpu_profile_* were added so): a caller that needs
// one looks its symbol up, as the device extension does when it starts,
// and asks for a rebuilt library when one is missing.
package capi

// ABIVersion is the version of the C ABI (tt_abi_version).
const ABIVersion = 1
