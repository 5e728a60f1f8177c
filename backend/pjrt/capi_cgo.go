//go:build cgo

package pjrt

// The calls this package makes to the PJRT C API itself, for what the
// gopjrt binding (v0.10.0) does not offer: executing without waiting
// (completion through PJRT_Event_OnReady), reading outputs after an
// execution error, and serializing / deserializing executables. The
// handles come from the binding's objects (binding_cgo.go) or from these
// calls. Every call checks that the entry point is in the plugin's table.
// The C side is capi.h; the buffer transfers are capi_transfer_cgo.go.

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "capi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/cgo"
	"unsafe"
)

// capi is one plugin's PJRT_Api table.
type capi struct{ p unsafe.Pointer }

// PJRTError is an error reported by a plugin.
type PJRTError struct {
	Code int // PJRT_Error_Code (absl status code), -1 when unknown
	Msg  string
}

func (e *PJRTError) Error() string { return fmt.Sprintf("PJRT error (code=%d): %s", e.Code, e.Msg) }

// toError converts and destroys a PJRT_Error; nil stays nil.
func (a capi) toError(err *C.PJRT_Error) error {
	if err == nil {
		return nil
	}
	var msg *C.char
	var n C.size_t
	var code C.int
	C.tt_error_info(a.p, err, &msg, &n, &code)
	e := &PJRTError{Code: int(code), Msg: C.GoStringN(msg, C.int(n))}
	C.tt_error_destroy(a.p, err)
	return e
}

var errNoEntry = errors.New("the plugin does not implement it")

// eventWaiter receives the result of one PJRT_Event through OnReady.
type eventWaiter struct {
	api capi
	ch  chan error // buffered: the callback never blocks a plugin thread
}

// eventReady delivers an event's result to its waiter (the cgo handle).
func eventReady(err *C.PJRT_Error, handle uintptr) {
	h := cgo.Handle(handle)
	w := h.Value().(*eventWaiter)
	h.Delete()
	w.ch <- w.api.toError(err)
}

// onReady arranges for ev's result to arrive on the returned channel. The
// caller destroys ev after receiving (never from inside the callback).
func (a capi) onReady(ev *C.PJRT_Event) <-chan error {
	w := &eventWaiter{api: a, ch: make(chan error, 1)}
	h := cgo.NewHandle(w)
	if err := a.toError(C.tt_on_ready(a.p, ev, C.uintptr_t(h))); err != nil {
		h.Delete()
		// OnReady alone failed: wait for the event instead.
		w.ch <- a.toError(C.tt_await_keep(a.p, ev))
	}
	return w.ch
}

// launched is an execution the plugin has accepted.
type launched struct {
	api  capi
	outs []*C.PJRT_Buffer
	done <-chan error  // the execution's completion
	ev   *C.PJRT_Event // destroyed by release
}

// execute enqueues an execution of exe on dev. keep lists the argument
// indices that must not be donated.
func (a capi) execute(exe, dev unsafe.Pointer, args []deviceBuffer, keep []int64, nout int) (*launched, error) {
	if C.tt_has_execute(a.p) == 0 {
		return nil, fmt.Errorf("PJRT_LoadedExecutable_Execute / PJRT_Event_OnReady: %w", errNoEntry)
	}
	// Arrays handed to C live in C memory: Go memory holding Go pointers
	// may not be passed.
	cargs := (**C.PJRT_Buffer)(C.calloc(C.size_t(max(len(args), 1)), C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(cargs))
	for i, b := range args {
		unsafe.Slice(cargs, len(args))[i] = b.buf
	}
	ckeep := (*C.int64_t)(C.calloc(C.size_t(max(len(keep), 1)), 8))
	defer C.free(unsafe.Pointer(ckeep))
	for i, k := range keep {
		unsafe.Slice(ckeep, len(keep))[i] = C.int64_t(k)
	}
	couts := (**C.PJRT_Buffer)(C.calloc(C.size_t(max(nout, 1)), C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(couts))
	var ev *C.PJRT_Event
	err := a.toError(C.tt_execute(a.p, (*C.PJRT_LoadedExecutable)(exe), (*C.PJRT_Device)(dev),
		cargs, C.size_t(len(args)), ckeep, C.size_t(len(keep)), couts, &ev))
	l := &launched{api: a, outs: append([]*C.PJRT_Buffer(nil), unsafe.Slice(couts, max(nout, 1))[:nout]...)}
	if err != nil {
		l.release() // a plugin may have made some outputs before failing
		if ev != nil {
			C.tt_event_destroy(a.p, ev)
		}
		return nil, err
	}
	if ev == nil {
		ch := make(chan error, 1)
		ch <- nil // no completion event: the plugin finished before returning
		l.done = ch
	} else {
		l.ev = ev
		l.done = a.onReady(ev)
	}
	return l, nil
}

// release destroys the output buffers and the completion event; call it
// once done has delivered.
func (l *launched) release() {
	for i, b := range l.outs {
		if b != nil {
			C.tt_buffer_destroy(l.api.p, b)
			l.outs[i] = nil
		}
	}
	if l.ev != nil {
		C.tt_event_destroy(l.api.p, l.ev)
		l.ev = nil
	}
}

// releaseEvent destroys the completion event only: the outputs belong
// to buffers now (RunBuffers).
func (l *launched) releaseEvent() {
	if l.ev != nil {
		C.tt_event_destroy(l.api.p, l.ev)
		l.ev = nil
	}
}

func (a capi) numOutputs(exe unsafe.Pointer) (int, error) {
	var n C.size_t
	if err := a.toError(C.tt_num_outputs(a.p, (*C.PJRT_LoadedExecutable)(exe), &n)); err != nil {
		return 0, err
	}
	return int(n), nil
}

func (a capi) serialize(exe unsafe.Pointer) ([]byte, error) {
	if C.tt_has_serialize(a.p) == 0 {
		return nil, fmt.Errorf("PJRT_Executable_Serialize: %w", errNoEntry)
	}
	var out *C.char
	var n C.size_t
	if err := a.toError(C.tt_serialize(a.p, (*C.PJRT_LoadedExecutable)(exe), &out, &n)); err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(out))
	return C.GoBytes(unsafe.Pointer(out), C.int(n)), nil
}

// deserialize loads a serialized executable on client; the result is
// destroyed when the returned owner is garbage collected.
func (a capi) deserialize(client unsafe.Pointer, blob []byte) (*rawExecutable, error) {
	if C.tt_has_deserialize(a.p) == 0 {
		return nil, fmt.Errorf("PJRT_Executable_DeserializeAndLoad: %w", errNoEntry)
	}
	cb := C.CBytes(blob)
	defer C.free(cb)
	var le *C.PJRT_LoadedExecutable
	if err := a.toError(C.tt_deserialize(a.p, (*C.PJRT_Client)(client), (*C.char)(cb), C.size_t(len(blob)), &le)); err != nil {
		return nil, err
	}
	if le == nil {
		return nil, errors.New("PJRT_Executable_DeserializeAndLoad returned no executable")
	}
	r := &rawExecutable{p: unsafe.Pointer(le)}
	runtime.AddCleanup(r, func(le unsafe.Pointer) { C.tt_loaded_destroy(a.p, (*C.PJRT_LoadedExecutable)(le)) }, r.p)
	return r, nil
}

// rawExecutable owns a PJRT_LoadedExecutable this package loaded itself.
type rawExecutable struct{ p unsafe.Pointer }

// await waits for ev, destroys it and returns its error.
func (a capi) await(ev *C.PJRT_Event) error { return a.toError(C.tt_await(a.p, ev)) }
