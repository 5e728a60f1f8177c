// Command libtorchtpu is torchtpu's engine as a C shared library:
//
//	go build -buildmode=c-shared -o libtorchtpu.so ./capi/libtorchtpu
//
// It writes libtorchtpu.h beside the library; the checked-in copy,
// torchtpu.h, is that header (CI rebuilds it and fails on a difference).
// The ABI is versioned by tt_abi_version. Every function reports failure
// through its return value and, when err is not NULL, an error message in
// *err that the caller frees with tt_string_free. No function panics or
// aborts the process on bad input: handles are numbers checked against a
// table, tensor descriptors are checked against the extent they declare.
package main

//go:generate go run ./genheader -src . -o torchtpu.h -doc ../doc.go

/*
#include "tt_types.h"
*/
import "C"

import (
	"context"
	"encoding/json"
	"unsafe"

	"github.com/torchtpu/torchtpu/capi"
)

func main() {}

// setErr stores err's message in *out (when out is not NULL).
func setErr(out **C.char, err error) {
	if out != nil && err != nil {
		*out = C.CString(err.Error())
	}
}

// cString returns b as a malloc'ed C string.
func cString(b []byte) *C.char { return C.CString(string(b)) }

// goBytes views n bytes at p (nil for n == 0).
func goBytes(p unsafe.Pointer, n int64) []byte {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

// tt_abi_version returns the ABI version (capi.ABIVersion).
//
//export tt_abi_version
func tt_abi_version() C.int32_t { return C.int32_t(capi.ABIVersion) }

// tt_version returns the engine's version and build as a JSON object
// (free with tt_string_free).
//
//export tt_version
func tt_version() *C.char {
	var js []byte
	_ = capi.Guard("tt_version", func() (err error) { js, err = capi.VersionJSON(); return })
	return cString(js)
}

// tt_string_free frees a string returned by this library.
//
//export tt_string_free
func tt_string_free(s *C.char) { C.free(unsafe.Pointer(s)) }

// tt_program_load reads a .pt2 archive of len bytes at data and prepares
// it with the options JSON (NULL or "" for defaults: {"device": "cpu",
// "fallback": "cpu", "cache_dir": "", "buckets": "", ...}). It returns a
// program handle, or 0 and *err.
//
//export tt_program_load
func tt_program_load(data unsafe.Pointer, n C.int64_t, options *C.char, errOut **C.char) C.uint64_t {
	var h capi.Handle
	err := capi.Guard("tt_program_load", func() (err error) {
		var opts []byte
		if options != nil {
			opts = []byte(C.GoString(options))
		}
		h, err = capi.LoadHandle(goBytes(data, int64(n)), opts)
		return
	})
	setErr(errOut, err)
	return C.uint64_t(h)
}

// tt_program_info returns a program's inputs, outputs, op counts and the
// ops torchtpu cannot run, as JSON (free with tt_string_free), or NULL
// and *err.
//
//export tt_program_info
func tt_program_info(prog C.uint64_t, errOut **C.char) *C.char {
	return jsonCall("tt_program_info", errOut, func() ([]byte, error) { return capi.InfoJSON(capi.Handle(prog)) })
}

// tt_program_metrics returns a program's run metrics as JSON (compiles,
// cache hits, fallbacks, recompiles with reasons, times), or NULL and *err.
//
//export tt_program_metrics
func tt_program_metrics(prog C.uint64_t, errOut **C.char) *C.char {
	return jsonCall("tt_program_metrics", errOut, func() ([]byte, error) { return capi.MetricsJSON(capi.Handle(prog)) })
}

// tt_devices returns the devices this process can use, as JSON.
//
//export tt_devices
func tt_devices(errOut **C.char) *C.char {
	return jsonCall("tt_devices", errOut, capi.DevicesJSON)
}

// tt_stats returns the live handles by kind, as JSON.
//
//export tt_stats
func tt_stats(errOut **C.char) *C.char {
	return jsonCall("tt_stats", errOut, func() ([]byte, error) { return json.Marshal(capi.Live()) })
}

func jsonCall(name string, errOut **C.char, f func() ([]byte, error)) *C.char {
	var js []byte
	err := capi.Guard(name, func() (err error) { js, err = f(); return })
	if err != nil {
		setErr(errOut, err)
		return nil
	}
	return cString(js)
}

// tensors converts n descriptors at p.
func tensors(p *C.tt_tensor, n C.int32_t) ([]capi.TensorDesc, error) {
	if n < 0 {
		return nil, capi.Errorf("negative tensor count %d", n)
	}
	if n > 0 && p == nil {
		return nil, capi.Errorf("null tensor array for %d tensors", n)
	}
	if n == 0 {
		return nil, nil
	}
	cs := unsafe.Slice(p, int(n))
	out := make([]capi.TensorDesc, n)
	for i := range cs {
		c := &cs[i]
		nd := int(c.ndim)
		if nd < 0 || nd > capi.MaxRank {
			return nil, capi.Errorf("tensor %d: rank %d outside 0..%d", i, nd, capi.MaxRank)
		}
		d := capi.TensorDesc{Data: c.data, Extent: int64(c.extent), DType: int32(c.dtype)}
		if nd > 0 {
			if c.shape == nil {
				return nil, capi.Errorf("tensor %d: null shape for rank %d", i, nd)
			}
			d.Shape = make([]int64, nd)
			for j, v := range unsafe.Slice(c.shape, nd) {
				d.Shape[j] = int64(v)
			}
			if c.strides != nil {
				d.Strides = make([]int64, nd)
				for j, v := range unsafe.Slice(c.strides, nd) {
					d.Strides[j] = int64(v)
				}
			}
		} else {
			d.Shape = []int64{}
		}
		out[i] = d
	}
	return out, nil
}

// tt_program_run runs a program on n input tensors (the program's user
// inputs in order; read during the call only) and returns a result
// handle, or 0 and *err.
//
//export tt_program_run
func tt_program_run(prog C.uint64_t, n C.int32_t, inputs *C.tt_tensor, errOut **C.char) C.uint64_t {
	var h capi.Handle
	markHostThread()
	err := capi.Guard("tt_program_run", func() error {
		ins, err := tensors(inputs, n)
		if err != nil {
			return err
		}
		h, err = capi.Run(context.Background(), capi.Handle(prog), ins)
		return err
	})
	setErr(errOut, err)
	return C.uint64_t(h)
}

// tt_program_run_into runs a program on n_in input tensors and writes its
// n_out outputs into caller memory, with no result handle: the engine's
// fast path for callers that know the outputs' shapes (a compiled graph
// with static shapes). inputs and outputs give dtype, rank, shape and
// strides; when in_data (out_data) is not NULL the data pointers and byte
// extents come from in_data/in_extents (out_data/out_extents) instead of
// the descriptors, so a caller can keep the descriptors between calls and
// change only these arrays. Each output is written in its descriptor's
// layout; a descriptor with a negative dtype skips its output. An output
// whose dtype or shape differs from its descriptor is an error. Returns 0,
// or -1 and *err.
//
//export tt_program_run_into
func tt_program_run_into(prog C.uint64_t, n_in C.int32_t, inputs *C.tt_tensor, in_data *unsafe.Pointer, in_extents *C.int64_t,
	n_out C.int32_t, outputs *C.tt_tensor, out_data *unsafe.Pointer, out_extents *C.int64_t, errOut **C.char) C.int32_t {
	markHostThread()
	err := capi.Guard("tt_program_run_into", func() error {
		ins, err := tensors(inputs, n_in)
		if err != nil {
			return err
		}
		if err := rebase(ins, in_data, in_extents, "input"); err != nil {
			return err
		}
		outs, err := tensors(outputs, n_out)
		if err != nil {
			return err
		}
		if err := rebase(outs, out_data, out_extents, "output"); err != nil {
			return err
		}
		return capi.RunInto(context.Background(), capi.Handle(prog), ins, outs)
	})
	setErr(errOut, err)
	if err != nil {
		return -1
	}
	return 0
}

// tt_program_bind binds a call of a program to the dtypes, shapes and
// strides of its n_in inputs and n_out outputs (the descriptors' data
// and extents are ignored) and returns a bound-call handle, or 0 and
// *err. tt_bound_run then runs it with data pointers and extents only:
// the fast path of a caller that calls one specialisation again and
// again (a compiled graph with static shapes). Free it with tt_free.
//
//export tt_program_bind
func tt_program_bind(prog C.uint64_t, n_in C.int32_t, inputs *C.tt_tensor, n_out C.int32_t, outputs *C.tt_tensor,
	errOut **C.char) C.uint64_t {
	var h capi.Handle
	err := capi.Guard("tt_program_bind", func() error {
		ins, err := tensors(inputs, n_in)
		if err != nil {
			return err
		}
		outs, err := tensors(outputs, n_out)
		if err != nil {
			return err
		}
		h, err = capi.Bind(capi.Handle(prog), ins, outs)
		return err
	})
	setErr(errOut, err)
	return C.uint64_t(h)
}

// tt_bound_run runs a bound call (tt_program_bind): in_data and
// in_extents give each input's data pointer and the bytes readable from
// it, out_data and out_extents each output's (as many as bound; an output
// bound with a negative dtype is skipped). Each extent is checked against
// the bytes the bound shape and strides address. Returns 0, or -1 and
// *err.
//
//export tt_bound_run
func tt_bound_run(bound C.uint64_t, in_data *unsafe.Pointer, in_extents *C.int64_t, out_data *unsafe.Pointer,
	out_extents *C.int64_t, errOut **C.char) C.int32_t {
	markHostThread()
	return status(capi.Guard("tt_bound_run", func() error {
		n, m, err := capi.BoundArity(capi.Handle(bound))
		if err != nil {
			return err
		}
		if (n > 0 && (in_data == nil || in_extents == nil)) || (m > 0 && (out_data == nil || out_extents == nil)) {
			return capi.Errorf("null data or extent array for %d inputs and %d outputs", n, m)
		}
		var ip, op []unsafe.Pointer
		var ie, oe []int64
		if n > 0 {
			ip, ie = unsafe.Slice(in_data, n), unsafe.Slice((*int64)(unsafe.Pointer(in_extents)), n)
		}
		if m > 0 {
			op, oe = unsafe.Slice(out_data, m), unsafe.Slice((*int64)(unsafe.Pointer(out_extents)), m)
		}
		return capi.RunBound(context.Background(), capi.Handle(bound), ip, ie, op, oe)
	}), errOut)
}

// rebase sets the descriptors' data pointers and extents from the arrays
// (when data is not NULL).
func rebase(ds []capi.TensorDesc, data *unsafe.Pointer, extents *C.int64_t, what string) error {
	if data == nil || len(ds) == 0 {
		return nil
	}
	if extents == nil {
		return capi.Errorf("%s data pointers without extents", what)
	}
	ps, es := unsafe.Slice(data, len(ds)), unsafe.Slice(extents, len(ds))
	for i := range ds {
		ds[i].Data = ps[i]
		ds[i].Extent = int64(es[i])
	}
	return nil
}

// tt_result_count returns the number of outputs of a result, or -1 and
// *err.
//
//export tt_result_count
func tt_result_count(res C.uint64_t, errOut **C.char) C.int32_t {
	n := -1
	err := capi.Guard("tt_result_count", func() error {
		m, err := capi.Describe(capi.Handle(res))
		n = len(m)
		return err
	})
	if err != nil {
		setErr(errOut, err)
		return -1
	}
	return C.int32_t(n)
}

// tt_result_describe writes, for the first n outputs of a result, the
// dtype (-1 for None), the rank and the shape (TT_MAX_RANK entries per
// output in shapes). It returns 0, or -1 and *err.
//
//export tt_result_describe
func tt_result_describe(res C.uint64_t, n C.int32_t, dtypes *C.int32_t, ndims *C.int32_t, shapes *C.int64_t, errOut **C.char) C.int32_t {
	err := capi.Guard("tt_result_describe", func() error {
		m, err := capi.Describe(capi.Handle(res))
		if err != nil {
			return err
		}
		if int(n) != len(m) {
			return capi.Errorf("asked for %d outputs, the result has %d", n, len(m))
		}
		if n == 0 {
			return nil
		}
		if dtypes == nil || ndims == nil || shapes == nil {
			return capi.Errorf("null output array")
		}
		dt := unsafe.Slice(dtypes, int(n))
		nd := unsafe.Slice(ndims, int(n))
		sh := unsafe.Slice(shapes, int(n)*capi.MaxRank)
		for i, o := range m {
			dt[i] = C.int32_t(o.DType)
			nd[i] = C.int32_t(len(o.Shape))
			for j, v := range o.Shape {
				sh[i*capi.MaxRank+j] = C.int64_t(v)
			}
		}
		return nil
	})
	if err != nil {
		setErr(errOut, err)
		return -1
	}
	return 0
}

// tt_result_copy copies output i of a result into dst (nbytes of
// contiguous memory of the output's dtype and shape). It returns 0, or -1
// and *err.
//
//export tt_result_copy
func tt_result_copy(res C.uint64_t, i C.int32_t, dst unsafe.Pointer, nbytes C.int64_t, errOut **C.char) C.int32_t {
	err := capi.Guard("tt_result_copy", func() error {
		return capi.CopyOut(capi.Handle(res), int(i), dst, int64(nbytes))
	})
	if err != nil {
		setErr(errOut, err)
		return -1
	}
	return 0
}

// tt_result_take hands output i of a result to the caller without a copy:
// *data and *nbytes receive the output's bytes (contiguous, of the dtype and
// shape tt_result_describe gives), which stay valid, and writable, until the
// returned handle is freed with tt_free. It returns 0 and *err for a None
// output, an empty one or one already taken.
//
//export tt_result_take
func tt_result_take(res C.uint64_t, i C.int32_t, data *unsafe.Pointer, nbytes *C.int64_t, errOut **C.char) C.uint64_t {
	var h capi.Handle
	err := capi.Guard("tt_result_take", func() error {
		if data == nil || nbytes == nil {
			return capi.Errorf("null data or nbytes pointer")
		}
		var p unsafe.Pointer
		var n int64
		var err error
		h, p, n, err = capi.Take(capi.Handle(res), int(i))
		if err != nil {
			return err
		}
		*data, *nbytes = p, C.int64_t(n)
		return nil
	})
	setErr(errOut, err)
	return C.uint64_t(h)
}

// tt_free releases any handle (program, result, buffer). It returns 0, or
// -1 and *err for a null, unknown or already freed handle.
//
//export tt_free
func tt_free(h C.uint64_t, errOut **C.char) C.int32_t {
	err := capi.Guard("tt_free", func() error { return capi.Free(capi.Handle(h)) })
	if err != nil {
		setErr(errOut, err)
		return -1
	}
	return 0
}
