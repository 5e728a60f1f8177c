package main

/*
#include "tt_types.h"
*/
import "C"

import (
	"context"
	"unsafe"

	"github.com/torchtpu/torchtpu/capi"
	"github.com/torchtpu/torchtpu/eager"
)

// The eager tpu device: PyTorch's PrivateUse1 kernels (python/torchtpu/csrc)
// keep tensor storage in engine buffers and send every op here, to the
// process's eager.Device (the runtime: package eager). A tensor crosses as
// argument words (see eager.Device.Call): its buffer handle (capi's
// table), dtype, storage offset, sizes and strides.

func device() (*eager.Device, error) { return capi.EagerDevice() }

func words(p *C.int64_t, n C.int32_t) ([]int64, error) {
	if n < 0 {
		return nil, capi.Errorf("negative word count %d", n)
	}
	if n == 0 {
		return nil, nil
	}
	if p == nil {
		return nil, capi.Errorf("null word array for %d words", n)
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(p)), int(n)), nil
}

func status(err error, errOut **C.char) C.int32_t {
	if err != nil {
		setErr(errOut, err)
		return -1
	}
	return 0
}

// tt_device_configure sets the eager device's options from JSON:
// {"backend": "cpu"|"xla-cpu"|"tpu"|"cuda", "mode": "async"|"debug"|"fused",
// "fused_max_ops": N}; omitted fields keep their values. Queued work is
// finished first. It returns 0, or -1 and *err.
//
//export tt_device_configure
func tt_device_configure(options *C.char, errOut **C.char) C.int32_t {
	return status(capi.Guard("tt_device_configure", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		var js []byte
		if options != nil {
			js = []byte(C.GoString(options))
		}
		return d.Configure(context.Background(), js)
	}), errOut)
}

// tt_device_stats returns the eager device's options, memory, counters
// and declined ops as JSON, or NULL and *err.
//
//export tt_device_stats
func tt_device_stats(errOut **C.char) *C.char {
	return jsonCall("tt_device_stats", errOut, func() ([]byte, error) {
		d, err := device()
		if err != nil {
			return nil, err
		}
		return d.StatsJSON()
	})
}

// tt_buffer_new allocates a device buffer of nbytes (contents zero until
// written) and returns its handle (free with tt_free), or 0 and *err.
//
//export tt_buffer_new
func tt_buffer_new(nbytes C.int64_t, errOut **C.char) C.uint64_t {
	var h uint64
	err := capi.Guard("tt_buffer_new", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		h, err = d.NewBuffer(int64(nbytes))
		return err
	})
	setErr(errOut, err)
	return C.uint64_t(h)
}

// tt_buffer_resize resizes a buffer to nbytes, keeping the bytes both
// sizes share. It returns 0, or -1 and *err.
//
//export tt_buffer_resize
func tt_buffer_resize(h C.uint64_t, nbytes C.int64_t, errOut **C.char) C.int32_t {
	return status(capi.Guard("tt_buffer_resize", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		return d.ResizeBuffer(uint64(h), int64(nbytes))
	}), errOut)
}

// tt_tensor_write copies nbytes at src (the tensor's elements, contiguous,
// row-major) into the tensor described by n words (one tensor item, see
// tt_op_call). The source is read before the call returns. It returns 0,
// or -1 and *err.
//
//export tt_tensor_write
func tt_tensor_write(view *C.int64_t, n C.int32_t, src unsafe.Pointer, nbytes C.int64_t, errOut **C.char) C.int32_t {
	return status(capi.Guard("tt_tensor_write", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		w, err := words(view, n)
		if err != nil {
			return err
		}
		h, v, err := eager.DecodeView(w)
		if err != nil {
			return err
		}
		return d.Write(h, v, src, int64(nbytes))
	}), errOut)
}

// tt_tensor_read copies the tensor described by n words into dst (nbytes,
// contiguous row-major), once the work queued before it is done; the
// failure of such work is reported here. It returns 0, or -1 and *err.
//
//export tt_tensor_read
func tt_tensor_read(view *C.int64_t, n C.int32_t, dst unsafe.Pointer, nbytes C.int64_t, errOut **C.char) C.int32_t {
	return status(capi.Guard("tt_tensor_read", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		w, err := words(view, n)
		if err != nil {
			return err
		}
		h, v, err := eager.DecodeView(w)
		if err != nil {
			return err
		}
		return d.Read(context.Background(), h, v, dst, int64(nbytes))
	}), errOut)
}

// tt_op_id interns an aten op by its overload name ("aten::add.Tensor")
// and PyTorch's schema text, and returns its number, or -1 and *err.
//
//export tt_op_id
func tt_op_id(name, schema *C.char, errOut **C.char) C.int32_t {
	id := C.int32_t(-1)
	err := capi.Guard("tt_op_id", func() error {
		if name == nil || schema == nil {
			return capi.Errorf("null op name or schema")
		}
		d, err := device()
		if err != nil {
			return err
		}
		n, err := d.OpID(C.GoString(name), C.GoString(schema))
		id = C.int32_t(n)
		return err
	})
	if err != nil {
		setErr(errOut, err)
		return -1
	}
	return id
}

// tt_op_supported returns NULL when the engine computes the aten op of
// this name and PyTorch schema, else why not (free with tt_string_free).
//
//export tt_op_supported
func tt_op_supported(name, schema *C.char) *C.char {
	var why string
	err := capi.Guard("tt_op_supported", func() error {
		if name == nil || schema == nil {
			return capi.Errorf("null op name or schema")
		}
		why = eager.Supported(C.GoString(name), C.GoString(schema))
		return nil
	})
	if err != nil {
		why = err.Error()
	}
	if why == "" {
		return nil
	}
	return C.CString(why)
}

// tt_op_call runs op number op on nwords argument words. It returns a
// status: 0 done or queued (*out_n words of returns in out), 1 a new
// signature (check the call, then call again with flags 1 to compile), 2
// declined (*err says why; the caller falls back), 3 out= arguments to
// resize (in out); or -1 and *err.
//
//export tt_op_call
func tt_op_call(op C.int32_t, w *C.int64_t, nwords C.int32_t, flags C.int64_t, out *C.int64_t, outCap C.int32_t, outN *C.int32_t, errOut **C.char) C.int32_t {
	st := C.int32_t(-1)
	err := capi.Guard("tt_op_call", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		args, err := words(w, nwords)
		if err != nil {
			return err
		}
		res, err := words(out, outCap)
		if err != nil {
			return err
		}
		s, msg, n, err := d.Call(context.Background(), int32(op), args, int64(flags), res)
		if err != nil {
			return err
		}
		if outN != nil {
			*outN = C.int32_t(n)
		}
		if s == eager.StatusDecline && errOut != nil {
			*errOut = C.CString(msg)
		}
		st = C.int32_t(s)
		return nil
	})
	if err != nil {
		setErr(errOut, err)
		return -1
	}
	return st
}

// tt_device_synchronize runs everything recorded and waits for the
// device's queue; it returns 0, or -1 and *err naming an op that failed
// asynchronously.
//
//export tt_device_synchronize
func tt_device_synchronize(errOut **C.char) C.int32_t {
	return status(capi.Guard("tt_device_synchronize", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		return d.Synchronize(context.Background())
	}), errOut)
}

// tt_event_record marks the current end of the device's queue and returns
// the mark (an event), or 0 and *err.
//
//export tt_event_record
func tt_event_record(errOut **C.char) C.uint64_t {
	var ev uint64
	err := capi.Guard("tt_event_record", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		ev, err = d.RecordEvent()
		return err
	})
	setErr(errOut, err)
	return C.uint64_t(ev)
}

// tt_event_query returns 1 when the work before event ev is done, else 0.
//
//export tt_event_query
func tt_event_query(ev C.uint64_t) C.int32_t {
	done := false
	_ = capi.Guard("tt_event_query", func() error {
		d, err := device()
		if err == nil {
			done = d.EventQuery(uint64(ev))
		}
		return err
	})
	if done {
		return 1
	}
	return 0
}

// tt_event_wait waits for the work before event ev. It returns 0, or -1
// and *err.
//
//export tt_event_wait
func tt_event_wait(ev C.uint64_t, errOut **C.char) C.int32_t {
	return status(capi.Guard("tt_event_wait", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		return d.EventWait(context.Background(), uint64(ev))
	}), errOut)
}

// tt_event_elapsed returns the milliseconds from event a to event b
// (waiting for both), or -1 and *err.
//
//export tt_event_elapsed
func tt_event_elapsed(a, b C.uint64_t, errOut **C.char) C.double {
	ms := -1.0
	err := capi.Guard("tt_event_elapsed", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		ms, err = d.EventElapsed(context.Background(), uint64(a), uint64(b))
		return err
	})
	if err != nil {
		setErr(errOut, err)
		return -1
	}
	return C.double(ms)
}

// tt_event_release forgets an event's timing.
//
//export tt_event_release
func tt_event_release(ev C.uint64_t) {
	_ = capi.Guard("tt_event_release", func() error {
		d, err := device()
		if err == nil {
			d.EventRelease(uint64(ev))
		}
		return err
	})
}

// tt_memory writes the bytes held by live device buffers and their peak
// (either pointer may be NULL); with reset_peak set the peak restarts at
// the current allocation. It returns 0, or -1 when the device fails to
// open.
//
//export tt_memory
func tt_memory(allocated, peak *C.int64_t, resetPeak C.int32_t) C.int32_t {
	err := capi.Guard("tt_memory", func() error {
		d, err := device()
		if err != nil {
			return err
		}
		if resetPeak != 0 {
			d.ResetPeak()
		}
		a, p := d.Memory()
		if allocated != nil {
			*allocated = C.int64_t(a)
		}
		if peak != nil {
			*peak = C.int64_t(p)
		}
		return nil
	})
	if err != nil {
		return -1
	}
	return 0
}
