package main

/*
#include "tt_types.h"
*/
import "C"

import (
	"context"

	"github.com/torchtpu/torchtpu/capi"
)

// Compiled programs on the tpu device's buffers, and the device's
// profiler. Added within ABI version 1 (no existing function changed): a
// caller that needs them looks their symbols up (the device extension
// does when it starts).

// tt_program_run_device runs program prog on tensors of the eager tpu
// device: nwords argument words hold one item per program input, in
// order, encoded as tt_op_call's arguments (a device tensor: read in
// place, no copy; a CPU tensor or 0-d CPU scalar: read during the call).
// The outputs are new device buffers, written to out as tt_op_call's
// returns: per output [1 handle dtype ndim sizes...] (a contiguous tensor
// whose buffer handle the caller frees with tt_free) or [0] for None;
// *out_n is the number of words. When every output has a static shape
// the run is queued like an op and its failure surfaces at the next
// synchronisation; otherwise the device finishes its queued work and runs
// the program before returning. prog must be compiled for the backend
// serving the device (its options' "device"). It returns 0, or -1 and
// *err.
//
//export tt_program_run_device
func tt_program_run_device(prog C.uint64_t, w *C.int64_t, nwords C.int32_t, out *C.int64_t, outCap C.int32_t, outN *C.int32_t, errOut **C.char) C.int32_t {
	return status(capi.Guard("tt_program_run_device", func() error {
		args, err := words(w, nwords)
		if err != nil {
			return err
		}
		res, err := words(out, outCap)
		if err != nil {
			return err
		}
		n, err := capi.RunOnDevice(context.Background(), capi.Handle(prog), args, res)
		if err != nil {
			return err
		}
		if outN != nil {
			*outN = C.int32_t(n)
		}
		return nil
	}), errOut)
}

// tt_profiler_start starts recording the device time of every task the
// tpu device runs (ops, fused blocks, compiled programs, copies), dropping
// earlier records. It returns 0, or -1 and *err.
//
//export tt_profiler_start
func tt_profiler_start(errOut **C.char) C.int32_t {
	return status(capi.Guard("tt_profiler_start", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		d.ProfileStart()
		return nil
	}), errOut)
}

// tt_profiler_tag sets the correlation tag that tasks enqueued from now on
// carry into their records (a host profiler's id of the op or range that
// launches them; 0 for none).
//
//export tt_profiler_tag
func tt_profiler_tag(tag C.uint64_t) {
	_ = capi.Guard("tt_profiler_tag", func() error {
		d, err := device()
		if err == nil {
			d.ProfileTag(uint64(tag))
		}
		return err
	})
}

// tt_profiler_stop waits for the tasks enqueued while recording, stops
// recording and returns the records as text (free with tt_string_free),
// one line per task in the order they ran: "start end tag kind name",
// start and end in Unix nanoseconds, kind one of op, block, program,
// copy; a last line "dropped N" when records were dropped over the bound.
// It returns NULL and *err on failure.
//
//export tt_profiler_stop
func tt_profiler_stop(errOut **C.char) *C.char {
	var text []byte
	err := capi.Guard("tt_profiler_stop", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		text, err = capi.ProfileStop(context.Background(), d)
		return err
	})
	if err != nil {
		setErr(errOut, err)
		return nil
	}
	return cString(text)
}

// tt_device_empty_cache finishes the device's queued work and returns the
// memory of freed device buffers to the system (the engine keeps no cache
// of its own: a freed buffer's bytes are garbage of its heap until then).
// It returns 0, or -1 and *err.
//
//export tt_device_empty_cache
func tt_device_empty_cache(errOut **C.char) C.int32_t {
	return status(capi.Guard("tt_device_empty_cache", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		return capi.EmptyCache(context.Background(), d)
	}), errOut)
}
