// The C side of capi_cgo.go and capi_transfer_cgo.go: the PJRT C API calls
// this package makes itself (see capi_cgo.go), each checking that the
// entry point is in the plugin's table. Included by both files' cgo
// preambles; the functions are static inline, so each file compiles its own
// copy of those it uses.

#ifndef TORCHTPU_PJRT_CAPI_H
#define TORCHTPU_PJRT_CAPI_H

#include <stdlib.h>
#include <string.h>
#include "pjrt_c_api.h"

extern void torchtpuEventReady(PJRT_Error* err, uintptr_t handle);

static inline void tt_on_ready_cb(PJRT_Error* err, void* arg) { torchtpuEventReady(err, (uintptr_t)arg); }

#define API(a) ((const PJRT_Api*)(a))

// tt_has reports whether the table holds a non-NULL entry at offset off.
static inline int tt_has(void* api, size_t off) {
	return API(api)->struct_size >= off + sizeof(void*) && *(void**)((char*)api + off) != NULL;
}
#define HAS(api, name) tt_has(api, offsetof(PJRT_Api, name))

static inline void tt_error_info(void* api, PJRT_Error* err, const char** msg, size_t* n, int* code) {
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

static inline void tt_error_destroy(void* api, PJRT_Error* err) {
	PJRT_Error_Destroy_Args d;
	memset(&d, 0, sizeof d);
	d.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
	d.error = err;
	API(api)->PJRT_Error_Destroy(&d);
}

static inline PJRT_Error* tt_execute(void* api, PJRT_LoadedExecutable* exe, PJRT_Device* dev,
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

static inline void tt_free_host_copy(PJRT_Error* err, void* arg) {
	struct tt_host_copy* h = arg;
	if (err) tt_error_destroy(h->api, err);
	free(h->data);
	free(h);
}

// tt_to_device starts copying size bytes at src to a new buffer on dev.
// The plugin reads a private copy of src, freed when done_with_host_buffer
// fires; *done is that event (NULL when the plugin gives none), to be
// destroyed by the caller once the buffer is no longer needed.
static inline PJRT_Error* tt_to_device(void* api, PJRT_Client* c, PJRT_Device* dev, const void* src, size_t size,
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

static inline PJRT_Error* tt_on_ready(void* api, PJRT_Event* ev, uintptr_t handle) {
	PJRT_Event_OnReady_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Event_OnReady_Args_STRUCT_SIZE;
	a.event = ev;
	a.callback = tt_on_ready_cb;
	a.user_arg = (void*)handle;
	return API(api)->PJRT_Event_OnReady(&a);
}

static inline void tt_event_destroy(void* api, PJRT_Event* ev) {
	PJRT_Event_Destroy_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE;
	a.event = ev;
	PJRT_Error* err = API(api)->PJRT_Event_Destroy(&a);
	if (err) tt_error_destroy(api, err);
}

// tt_await_keep waits for ev and returns its error.
static inline PJRT_Error* tt_await_keep(void* api, PJRT_Event* ev) {
	PJRT_Event_Await_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
	a.event = ev;
	return API(api)->PJRT_Event_Await(&a);
}

// tt_await waits for ev, destroys it and returns its error.
static inline PJRT_Error* tt_await(void* api, PJRT_Event* ev) {
	PJRT_Event_Await_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
	a.event = ev;
	PJRT_Error* err = API(api)->PJRT_Event_Await(&a);
	tt_event_destroy(api, ev);
	return err;
}

static inline PJRT_Error* tt_buffer_shape(void* api, PJRT_Buffer* b, int* type, const int64_t** dims, size_t* ndims) {
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
static inline PJRT_Error* tt_to_host(void* api, PJRT_Buffer* b, void* dst, size_t size, int rank) {
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

static inline void tt_buffer_destroy(void* api, PJRT_Buffer* b) {
	PJRT_Buffer_Destroy_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE;
	a.buffer = b;
	PJRT_Error* err = API(api)->PJRT_Buffer_Destroy(&a);
	if (err) tt_error_destroy(api, err);
}

static inline PJRT_Error* tt_get_executable(void* api, PJRT_LoadedExecutable* le, PJRT_Executable** out) {
	PJRT_LoadedExecutable_GetExecutable_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE;
	a.loaded_executable = le;
	PJRT_Error* err = API(api)->PJRT_LoadedExecutable_GetExecutable(&a);
	*out = a.executable;
	return err;
}

static inline void tt_executable_destroy(void* api, PJRT_Executable* x) {
	PJRT_Executable_Destroy_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_Executable_Destroy_Args_STRUCT_SIZE;
	a.executable = x;
	PJRT_Error* err = API(api)->PJRT_Executable_Destroy(&a);
	if (err) tt_error_destroy(api, err);
}

static inline PJRT_Error* tt_num_outputs(void* api, PJRT_LoadedExecutable* le, size_t* n) {
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
static inline PJRT_Error* tt_serialize(void* api, PJRT_LoadedExecutable* le, char** out, size_t* n) {
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

static inline PJRT_Error* tt_deserialize(void* api, PJRT_Client* c, const char* b, size_t n, PJRT_LoadedExecutable** out) {
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

static inline void tt_loaded_destroy(void* api, PJRT_LoadedExecutable* le) {
	PJRT_LoadedExecutable_Destroy_Args a;
	memset(&a, 0, sizeof a);
	a.struct_size = PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE;
	a.executable = le;
	PJRT_Error* err = API(api)->PJRT_LoadedExecutable_Destroy(&a);
	if (err) tt_error_destroy(api, err);
}

static inline int tt_has_execute(void* api) { return HAS(api, PJRT_LoadedExecutable_Execute) && HAS(api, PJRT_Event_OnReady); }
static inline int tt_has_serialize(void* api) { return HAS(api, PJRT_Executable_Serialize); }
static inline int tt_has_deserialize(void* api) { return HAS(api, PJRT_Executable_DeserializeAndLoad); }

#endif
