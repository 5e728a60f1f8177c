//go:build cgo

package pjrt

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdlib.h>
#include <string.h>
#include "pjrt_c_api.h"

#define API(a) ((const PJRT_Api*)(a))

// tt_execute_devices runs exe on ndev devices at once (execute_device
// NULL: argument list i goes to the executable's addressable device i)
// and waits for every device.
static PJRT_Error* tt_execute_devices(void* api, PJRT_LoadedExecutable* exe, size_t ndev,
		PJRT_Buffer*** args, size_t nargs, PJRT_Buffer*** outs, PJRT_Event** events) {
	PJRT_ExecuteOptions o;
	memset(&o, 0, sizeof o);
	o.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE;
	PJRT_LoadedExecutable_Execute_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
	a.executable = exe;
	a.options = &o;
	a.argument_lists = (PJRT_Buffer* const* const*)args;
	a.num_devices = ndev;
	a.num_args = nargs;
	a.output_lists = outs;
	a.device_complete_events = events;
	return API(api)->PJRT_LoadedExecutable_Execute(&a);
}
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"

	"github.com/torchtpu/torchtpu/backend"
)

// gridOf is the program's replicas × partitions: the options', else the
// module's mhlo.num_replicas / mhlo.num_partitions.
func gridOf(m *stablehlo.Module, opts backend.Options) (replicas, partitions int) {
	replicas, partitions = opts.Replicas, opts.Partitions
	for _, a := range m.Attrs {
		if i, ok := a.Value.(*stablehlo.IntAttr); ok && i.Value > 0 && i.Value < 1<<16 {
			switch {
			case a.Name == "mhlo.num_replicas" && replicas == 0:
				replicas = int(i.Value)
			case a.Name == "mhlo.num_partitions" && partitions == 0:
				partitions = int(i.Value)
			}
		}
	}
	return max(replicas, 1), max(partitions, 1)
}

// Devices reports how many devices the executable runs on.
func (e *executable) Devices() int { return max(e.devices, 1) }

// RunOnDevices runs a replicated or partitioned executable: args[i] are
// the arguments of device i (replica-major: replica r, partition p is
// device r·partitions+p, on the client's addressable devices in order;
// for a sharded argument, device i's shard), and the result is each
// device's outputs. It waits for every device.
func (e *executable) RunOnDevices(ctx context.Context, args [][]*literal.Literal) ([][]*literal.Literal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := e.Devices()
	if len(args) != n {
		return nil, fmt.Errorf("pjrt %s: the program runs on %d devices, got arguments for %d", e.b.Name(), n, len(args))
	}
	sc := e.b.shared
	devs := sc.client.AddressableDevices()
	if len(devs) < n {
		return nil, fmt.Errorf("pjrt %s: the program runs on %d devices, the client has %d", e.b.Name(), n, len(devs))
	}
	api := sc.api
	var bufs []deviceBuffer
	defer func() {
		for i := range bufs {
			bufs[i].release(api)
		}
	}()
	ptr := C.size_t(unsafe.Sizeof(uintptr(0)))
	cargs := (***C.PJRT_Buffer)(C.calloc(C.size_t(n), ptr))
	defer C.free(unsafe.Pointer(cargs))
	couts := (***C.PJRT_Buffer)(C.calloc(C.size_t(n), ptr))
	defer C.free(unsafe.Pointer(couts))
	argLists := unsafe.Slice(cargs, n)
	outLists := unsafe.Slice(couts, n)
	for d := 0; d < n; d++ {
		if len(args[d]) != e.nargs {
			return nil, fmt.Errorf("pjrt %s: device %d: the program takes %d arguments, got %d", e.b.Name(), d, e.nargs, len(args[d]))
		}
		raw, err := deviceHandle(devs[d])
		if err != nil {
			return nil, fmt.Errorf("pjrt %s: %w", e.b.Name(), err)
		}
		argLists[d] = (**C.PJRT_Buffer)(C.calloc(C.size_t(max(e.nargs, 1)), ptr))
		defer C.free(unsafe.Pointer(argLists[d]))
		outLists[d] = (**C.PJRT_Buffer)(C.calloc(C.size_t(max(e.nout, 1)), ptr))
		defer C.free(unsafe.Pointer(outLists[d]))
		for i, a := range args[d] {
			db, err := api.toDevice(sc.raw, raw, a)
			if err != nil {
				return nil, fmt.Errorf("pjrt %s: device %d argument %d: %w", e.b.Name(), d, i, err)
			}
			bufs = append(bufs, db)
			unsafe.Slice(argLists[d], e.nargs)[i] = db.buf
		}
	}
	cevents := (**C.PJRT_Event)(C.calloc(C.size_t(n), ptr))
	defer C.free(unsafe.Pointer(cevents))
	err := api.toError(C.tt_execute_devices(api.p, (*C.PJRT_LoadedExecutable)(e.handle), C.size_t(n), cargs, C.size_t(e.nargs), couts, cevents))
	events := unsafe.Slice(cevents, n)
	var outs []deviceBuffer
	for d := 0; d < n; d++ {
		for _, o := range unsafe.Slice(outLists[d], max(e.nout, 1))[:e.nout] {
			if o != nil {
				outs = append(outs, deviceBuffer{buf: o})
			}
		}
	}
	defer func() {
		for i := range outs {
			outs[i].release(api)
		}
	}()
	for d := 0; d < n; d++ {
		if events[d] != nil {
			if werr := api.await(events[d]); werr != nil && err == nil {
				err = werr
			}
		}
	}
	runtime.KeepAlive(e)
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: execute on %d devices: %w", e.b.Name(), n, err)
	}
	res := make([][]*literal.Literal, n)
	for d := 0; d < n; d++ {
		for i, o := range unsafe.Slice(outLists[d], max(e.nout, 1))[:e.nout] {
			l, err := api.toHost(o)
			if err != nil {
				return nil, fmt.Errorf("pjrt %s: device %d output %d: %w", e.b.Name(), d, i, err)
			}
			res[d] = append(res[d], l)
		}
	}
	return res, nil
}
