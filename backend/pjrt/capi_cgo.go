//go:build cgo

package pjrt

// The calls this package makes to the PJRT C API itself, for what the
// gopjrt binding (v0.10.0) does not offer: executing without waiting
// (completion through PJRT_Event_OnReady), reading outputs after an
// execution error, and serializing / deserializing executables. The
// handles come from the binding's objects (binding_cgo.go) or from these
// calls. Every call checks that the entry point is in the plugin's table.

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdlib.h>
#include <string.h>
#include "pjrt_c_api.h"

extern void torchtpuEventReady(PJRT_Error* err, uintptr_t handle);

static void tt_on_ready_cb(PJRT_Error* err, void* arg) { torchtpuEventReady(err, (uintptr_t)arg); }

#define API(a) ((const PJRT_Api*)(a))

// tt_has reports whether the table holds a non-NULL entry at offset off.
static int tt_has(void* api, size_t off) {
	return API(api)->struct_size >= off + sizeof(void*) && *(void**)((char*)api + off) != NULL;
}
#define HAS(api, name) tt_has(api, offsetof(PJRT_Api, name))

static void tt_error_info(void* api, PJRT_Error* err, const char** msg, size_t* n, int* code) {
	PJRT_Error_Message_Args m;
	memset(&m, 0, sizeof m);
	m.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE;
	m.error = err;
	API(api)->PJRT_Error_Message(&m);
	*msg = m.message;
	*n = m.message_size;
	PJRT_Error_GetCode_Args c;
	memset(&c, 0, sizeof c);
	c.struct_size = PJRT_Error_GetCode_Args_STRUCT_SIZE;
	c.error = err;
	PJRT_Error* e2 = API(api)->PJRT_Error_GetCode(&c);
	*code = e2 ? -1 : (int)c.code;
	if (e2) {
		PJRT_Error_Destroy_Args d = {PJRT_Error_Destroy_Args_STRUCT_SIZE, NULL, e2};
		API(api)->PJRT_Error_Destroy(&d);
	}
}

static void tt_error_destroy(void* api, PJRT_Error* err) {
	PJRT_Error_Destroy_Args d;
	memset(&d, 0, sizeof d);
	d.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
	d.error = err;
	API(api)->PJRT_Error_Destroy(&d);
}

static PJRT_Error* tt_execute(void* api, PJRT_LoadedExecutable* exe, PJRT_Device* dev,
		PJRT_Buffer** args, size_t nargs, int64_t* keep, size_t nkeep,
		PJRT_Buffer** outs, PJRT_Event** done) {
	PJRT_ExecuteOptions o;
	memset(&o, 0, sizeof o);
	o.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE;
	o.non_donatable_input_indices = keep;
	o.num_non_donatable_input_indices = nkeep;
	PJRT_Buffer* const* arg_lists[1] = {args};
	PJRT_Buffer** out_lists[1] = {outs};
	PJRT_Event* events[1] = {NULL};
	PJRT_LoadedExecutable_Execute_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE;
	a.executable = exe;
	a.options = &o;
	a.argument_lists = arg_lists;
	a.num_devices = 1;
	a.num_args = nargs;
	a.output_lists = out_lists;
	a.device_complete_events = events;
	a.execute_device = dev;
	PJRT_Error* err = API(api)->PJRT_LoadedExecutable_Execute(&a);
	*done = events[0];
	return err;
}

// A host copy handed to the plugin, freed when the plugin is done with it.
struct tt_host_copy { void* api; void* data; };

static void tt_free_host_copy(PJRT_Error* err, void* arg) {
	struct tt_host_copy* h = arg;
	if (err) tt_error_destroy(h->api, err);
	free(h->data);
	free(h);
}

// tt_to_device starts copying size bytes at src to a new buffer on dev.
// The plugin reads a private copy of src, freed when done_with_host_buffer
// fires; *done is that event (NULL when the plugin gives none), to be
// destroyed by the caller once the buffer is no longer needed.
static PJRT_Error* tt_to_device(void* api, PJRT_Client* c, PJRT_Device* dev, const void* src, size_t size,
		int type, const int64_t* dims, size_t ndims, PJRT_Buffer** out, PJRT_Event** done) {
	*out = NULL;
	*done = NULL;
	void* copy = malloc(size ? size : 1);
	if (!copy) return NULL;
	memcpy(copy, src, size);
	PJRT_Client_BufferFromHostBuffer_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
	a.client = c;
	a.data = copy;
	a.type = (PJRT_Buffer_Type)type;
	a.dims = dims;
	a.num_dims = ndims;
	a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
	a.device = dev;
	PJRT_Error* err = API(api)->PJRT_Client_BufferFromHostBuffer(&a);
	if (err) {
		free(copy);
		return err;
	}
	*out = a.buffer;
	*done = a.done_with_host_buffer;
	if (!a.done_with_host_buffer) {
		free(copy);
		return NULL;
	}
	struct tt_host_copy* h = malloc(sizeof *h);
	h->api = api;
	h->data = copy;
	PJRT_Event_OnReady_Args r;
	memset(&r, 0, sizeof r);
	r.struct_size = PJRT_Event_OnReady_Args_STRUCT_SIZE;
	r.event = a.done_with_host_buffer;
	r.callback = tt_free_host_copy;
	r.user_arg = h;
	err = API(api)->PJRT_Event_OnReady(&r);
	if (err) { // wait instead
		tt_error_destroy(api, err);
		PJRT_Event_Await_Args w;
		memset(&w, 0, sizeof w);
		w.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
		w.event = a.done_with_host_buffer;
		err = API(api)->PJRT_Event_Await(&w);
		if (err) tt_error_destroy(api, err);
		free(copy);
		free(h);
	}
	return NULL;
}

static PJRT_Error* tt_on_ready(void* api, PJRT_Event* ev, uintptr_t handle) {
	PJRT_Event_OnReady_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Event_OnReady_Args_STRUCT_SIZE;
	a.event = ev;
	a.callback = tt_on_ready_cb;
	a.user_arg = (void*)handle;
	return API(api)->PJRT_Event_OnReady(&a);
}

static void tt_event_destroy(void* api, PJRT_Event* ev) {
	PJRT_Event_Destroy_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE;
	a.event = ev;
	PJRT_Error* err = API(api)->PJRT_Event_Destroy(&a);
	if (err) tt_error_destroy(api, err);
}

// tt_await_keep waits for ev and returns its error.
static PJRT_Error* tt_await_keep(void* api, PJRT_Event* ev) {
	PJRT_Event_Await_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
	a.event = ev;
	return API(api)->PJRT_Event_Await(&a);
}

// tt_await waits for ev, destroys it and returns its error.
static PJRT_Error* tt_await(void* api, PJRT_Event* ev) {
	PJRT_Event_Await_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
	a.event = ev;
	PJRT_Error* err = API(api)->PJRT_Event_Await(&a);
	tt_event_destroy(api, ev);
	return err;
}

static PJRT_Error* tt_buffer_shape(void* api, PJRT_Buffer* b, int* type, const int64_t** dims, size_t* ndims) {
	PJRT_Buffer_ElementType_Args t;
	memset(&t, 0, sizeof t);
	t.struct_size = PJRT_Buffer_ElementType_Args_STRUCT_SIZE;
	t.buffer = b;
	PJRT_Error* err = API(api)->PJRT_Buffer_ElementType(&t);
	if (err) return err;
	*type = (int)t.type;
	PJRT_Buffer_Dimensions_Args d;
	memset(&d, 0, sizeof d);
	d.struct_size = PJRT_Buffer_Dimensions_Args_STRUCT_SIZE;
	d.buffer = b;
	err = API(api)->PJRT_Buffer_Dimensions(&d);
	if (err) return err;
	*dims = d.dims;
	*ndims = d.num_dims;
	return NULL;
}

// tt_to_host copies b into dst (row-major) and waits for the copy.
static PJRT_Error* tt_to_host(void* api, PJRT_Buffer* b, void* dst, size_t size, int rank) {
	int64_t minor_to_major[rank > 0 ? rank : 1];
	for (int i = 0; i < rank; i++) minor_to_major[i] = rank - 1 - i;
	PJRT_Buffer_MemoryLayout layout;
	memset(&layout, 0, sizeof layout);
	layout.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
	layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
	layout.tiled.minor_to_major = minor_to_major;
	layout.tiled.minor_to_major_size = (size_t)rank;
	PJRT_Buffer_ToHostBuffer_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
	a.src = b;
	a.host_layout = &layout;
	a.dst = dst;
	a.dst_size = size;
	PJRT_Error* err = API(api)->PJRT_Buffer_ToHostBuffer(&a);
	if (err) return err;
	if (a.event == NULL) return NULL;
	return tt_await(api, a.event);
}

static void tt_buffer_destroy(void* api, PJRT_Buffer* b) {
	PJRT_Buffer_Destroy_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE;
	a.buffer = b;
	PJRT_Error* err = API(api)->PJRT_Buffer_Destroy(&a);
	if (err) tt_error_destroy(api, err);
}

static PJRT_Error* tt_get_executable(void* api, PJRT_LoadedExecutable* le, PJRT_Executable** out) {
	PJRT_LoadedExecutable_GetExecutable_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE;
	a.loaded_executable = le;
	PJRT_Error* err = API(api)->PJRT_LoadedExecutable_GetExecutable(&a);
	*out = a.executable;
	return err;
}

static void tt_executable_destroy(void* api, PJRT_Executable* x) {
	PJRT_Executable_Destroy_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Executable_Destroy_Args_STRUCT_SIZE;
	a.executable = x;
	PJRT_Error* err = API(api)->PJRT_Executable_Destroy(&a);
	if (err) tt_error_destroy(api, err);
}

static PJRT_Error* tt_num_outputs(void* api, PJRT_LoadedExecutable* le, size_t* n) {
	PJRT_Executable* x = NULL;
	PJRT_Error* err = tt_get_executable(api, le, &x);
	if (err) return err;
	PJRT_Executable_NumOutputs_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Executable_NumOutputs_Args_STRUCT_SIZE;
	a.executable = x;
	err = API(api)->PJRT_Executable_NumOutputs(&a);
	*n = a.num_outputs;
	tt_executable_destroy(api, x);
	return err;
}

// tt_serialize returns the serialized executable in a malloc'd copy.
static PJRT_Error* tt_serialize(void* api, PJRT_LoadedExecutable* le, char** out, size_t* n) {
	*out = NULL;
	*n = 0;
	PJRT_Executable* x = NULL;
	PJRT_Error* err = tt_get_executable(api, le, &x);
	if (err) return err;
	PJRT_Executable_Serialize_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Executable_Serialize_Args_STRUCT_SIZE;
	a.executable = x;
	err = API(api)->PJRT_Executable_Serialize(&a);
	if (!err) {
		*out = malloc(a.serialized_bytes_size ? a.serialized_bytes_size : 1);
		memcpy(*out, a.serialized_bytes, a.serialized_bytes_size);
		*n = a.serialized_bytes_size;
		if (a.serialized_executable_deleter) a.serialized_executable_deleter(a.serialized_executable);
	}
	tt_executable_destroy(api, x);
	return err;
}

static PJRT_Error* tt_deserialize(void* api, PJRT_Client* c, const char* b, size_t n, PJRT_LoadedExecutable** out) {
	PJRT_Executable_DeserializeAndLoad_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Executable_DeserializeAndLoad_Args_STRUCT_SIZE;
	a.client = c;
	a.serialized_executable = b;
	a.serialized_executable_size = n;
	PJRT_Error* err = API(api)->PJRT_Executable_DeserializeAndLoad(&a);
	*out = a.loaded_executable;
	return err;
}

static void tt_loaded_destroy(void* api, PJRT_LoadedExecutable* le) {
	PJRT_LoadedExecutable_Destroy_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE;
	a.executable = le;
	PJRT_Error* err = API(api)->PJRT_LoadedExecutable_Destroy(&a);
	if (err) tt_error_destroy(api, err);
}

static int tt_has_execute(void* api) { return HAS(api, PJRT_LoadedExecutable_Execute) && HAS(api, PJRT_Event_OnReady); }
static int tt_has_serialize(void* api) { return HAS(api, PJRT_Executable_Serialize); }
static int tt_has_deserialize(void* api) { return HAS(api, PJRT_Executable_DeserializeAndLoad); }
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/cgo"
	"unsafe"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
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

// deviceBuffer is a buffer this package transferred.
type deviceBuffer struct {
	buf  *C.PJRT_Buffer
	done *C.PJRT_Event // the plugin is done with the host copy; may be nil
}

// toDevice starts the copy of l to dev and returns without waiting for
// it: the plugin orders an execution that reads the buffer after the copy.
func (a capi) toDevice(client, dev unsafe.Pointer, l *literal.Literal) (deviceBuffer, error) {
	pt, err := toPJRT(l.DType)
	if err != nil {
		return deviceBuffer{}, err
	}
	cdims := (*C.int64_t)(C.calloc(C.size_t(max(len(l.Shape), 1)), 8))
	defer C.free(unsafe.Pointer(cdims))
	for i, d := range l.Shape {
		unsafe.Slice(cdims, len(l.Shape))[i] = C.int64_t(d)
	}
	var src unsafe.Pointer
	if len(l.Data) > 0 {
		src = unsafe.Pointer(&l.Data[0])
	}
	var b deviceBuffer
	err = a.toError(C.tt_to_device(a.p, (*C.PJRT_Client)(client), (*C.PJRT_Device)(dev), src, C.size_t(len(l.Data)),
		C.int(pt), cdims, C.size_t(len(l.Shape)), &b.buf, &b.done))
	if err == nil && b.buf == nil {
		err = errors.New("out of host memory for the transfer")
	}
	if err != nil {
		if b.done != nil {
			C.tt_event_destroy(a.p, b.done)
		}
		return deviceBuffer{}, err
	}
	return b, nil
}

// release destroys the buffer and its transfer event.
func (b *deviceBuffer) release(a capi) {
	if b.buf != nil {
		C.tt_buffer_destroy(a.p, b.buf)
		b.buf = nil
	}
	if b.done != nil {
		C.tt_event_destroy(a.p, b.done)
		b.done = nil
	}
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

// bufferShape reads a buffer's element type and dimensions.
func (a capi) bufferShape(b *C.PJRT_Buffer) (dtype.DType, []int64, error) {
	if b == nil {
		return dtype.Invalid, nil, errors.New("the plugin returned no buffer")
	}
	var typ C.int
	var cdims *C.int64_t
	var n C.size_t
	if err := a.toError(C.tt_buffer_shape(a.p, b, &typ, &cdims, &n)); err != nil {
		return dtype.Invalid, nil, err
	}
	dt, err := fromBufferType(int(typ))
	if err != nil {
		return dtype.Invalid, nil, err
	}
	if cdims == nil && n > 0 {
		return dtype.Invalid, nil, fmt.Errorf("the plugin reports rank %d but no dimensions", n)
	}
	shape := make([]int64, int(n))
	for i, d := range unsafe.Slice(cdims, int(n)) {
		shape[i] = int64(d)
	}
	return dt, shape, nil
}

// toHost copies output buffer b to a new literal.
func (a capi) toHost(b *C.PJRT_Buffer) (*literal.Literal, error) {
	dt, shape, err := a.bufferShape(b)
	if err != nil {
		return nil, err
	}
	l, err := literal.New(dt, shape)
	if err != nil {
		return nil, err
	}
	// The copy goes straight into the literal's Go memory: it holds no Go
	// pointers, and tt_to_host waits for the copy before it returns, so
	// the plugin does not keep it.
	var one [1]byte
	dst := unsafe.Pointer(&one[0])
	if len(l.Data) > 0 {
		dst = unsafe.Pointer(&l.Data[0])
	}
	if err := a.toError(C.tt_to_host(a.p, b, dst, C.size_t(len(l.Data)), C.int(len(shape)))); err != nil {
		return nil, fmt.Errorf("copy to host: %w", err)
	}
	return l, nil
}

// fromBufferType maps a PJRT_Buffer_Type to ours.
func fromBufferType(t int) (dtype.DType, error) {
	for _, p := range dtypePairs {
		if int(p.pj) == t {
			return p.ours, nil
		}
	}
	return dtype.Invalid, fmt.Errorf("PJRT element type %d is not supported: %w", t, backend.ErrNotImplemented)
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
