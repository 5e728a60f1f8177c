// A fake PJRT plugin for torchtpu's tests. It has the PJRT_Api table of a
// real plugin (include/pjrt_c_api.h, the header the gopjrt binding is built
// against), creates clients with FAKE_PJRT_DEVICES devices, "compiles" any
// MLIR module into an executable that echoes its inputs back as outputs
// (output i is a copy of input i; the number of outputs is the number of
// arguments of @main), transfers buffers by copying host bytes, completes
// events (optionally late, from another thread), and serializes an
// executable as its module text.
//
// Its behaviour is steered by environment variables. Read by the first
// GetPjrtApi call of the library:
//   FAKE_PJRT_MAJOR, FAKE_PJRT_MINOR  the API version it reports
//   FAKE_PJRT_NULL_ENTRY=N            leave function pointer N NULL
//   FAKE_PJRT_TABLE_BYTES=N           the struct_size it reports
// Read when called:
//   FAKE_PJRT_STABLEHLO=MAJOR.MINOR.PATCH  its stablehlo_current_version attribute
//   FAKE_PJRT_DEVICES=N     devices per client (default 1; 0: client creation fails)
//   FAKE_PJRT_DELAY_MS=N    execution-complete events fire N ms after Execute returns
//   FAKE_PJRT_COMPILE_DELAY_MS=N  compiling takes N ms
//   FAKE_PJRT_TRANSFER_DELAY_MS=N the plugin is done with a host buffer N ms
//                           after BufferFromHostBuffer returns
//   FAKE_PJRT_FAIL=a,b,...  fail these steps: compile, transfer, execute
//                           (Execute returns an error), event (the completion
//                           event carries an error), tohost, outsize (outputs
//                           are larger than their dimensions say, so a host
//                           buffer sized from them is too small), serialize,
//                           nullout (output 0 is a NULL buffer)
//   FAKE_PJRT_LOG=path      append one line per client_create (then one
//                           "option KEY=VALUE" per create option), client_destroy,
//                           compile, execute, donate N, buffer_create,
//                           buffer_destroy, exe_destroy SIZE (the module text's size),
//                           serialize, deserialize
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pjrt_c_api.h"

static PJRT_Api table;

/* ---------- helpers ---------- */

static int env_int(const char* name, int def) {
  const char* v = getenv(name);
  return v && *v ? atoi(v) : def;
}

static int failing(const char* step) {
  const char* v = getenv("FAKE_PJRT_FAIL");
  if (!v) return 0;
  size_t n = strlen(step);
  for (const char* p = v; (p = strstr(p, step)) != NULL; p += n) {
    if ((p == v || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
  }
  return 0;
}

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

static void logf_(const char* fmt, ...) {
  const char* path = getenv("FAKE_PJRT_LOG");
  if (!path || !*path) return;
  pthread_mutex_lock(&log_mu);
  FILE* f = fopen(path, "a");
  if (f) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
  }
  pthread_mutex_unlock(&log_mu);
}

struct PJRT_Error { char* msg; PJRT_Error_Code code; };

static PJRT_Error* new_error_code(PJRT_Error_Code code, const char* fmt, ...) {
  PJRT_Error* e = malloc(sizeof *e);
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  e->msg = strdup(buf);
  e->code = code;
  return e;
}
#define new_error(...) new_error_code(PJRT_Error_Code_INTERNAL, __VA_ARGS__)

static void error_destroy(PJRT_Error_Destroy_Args* a) {
  if (a->error) {
    free(a->error->msg);
    free(a->error);
  }
}
static void error_message(PJRT_Error_Message_Args* a) {
  a->message = a->error->msg;
  a->message_size = strlen(a->error->msg);
}
static PJRT_Error* error_code(PJRT_Error_GetCode_Args* a) {
  a->code = a->error->code;
  return NULL;
}

static PJRT_Error* unimplemented(void* a) {
  (void)a;
  return new_error_code(PJRT_Error_Code_UNIMPLEMENTED, "fake plugin: entry point not implemented");
}

/* ---------- plugin ---------- */

static PJRT_Error* plugin_initialize(PJRT_Plugin_Initialize_Args* a) { (void)a; return NULL; }

static int64_t shlo_version[3];
static PJRT_NamedValue attrs[1];

static PJRT_Error* plugin_attributes(PJRT_Plugin_Attributes_Args* args) {
  args->attributes = NULL;
  args->num_attributes = 0;
  const char* v = getenv("FAKE_PJRT_STABLEHLO");
  if (v && *v) {
    char* end;
    shlo_version[0] = strtoll(v, &end, 10);
    shlo_version[1] = *end ? strtoll(end + 1, &end, 10) : 0;
    shlo_version[2] = *end ? strtoll(end + 1, &end, 10) : 0;
    memset(&attrs[0], 0, sizeof attrs[0]);
    attrs[0].struct_size = PJRT_NamedValue_STRUCT_SIZE;
    attrs[0].name = "stablehlo_current_version";
    attrs[0].name_size = strlen(attrs[0].name);
    attrs[0].type = PJRT_NamedValue_kInt64List;
    attrs[0].int64_array_value = shlo_version;
    attrs[0].value_size = 3;
    args->attributes = attrs;
    args->num_attributes = 1;
  }
  return NULL;
}

/* ---------- events ---------- */

struct PJRT_Event {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int refs;  /* the caller's, plus one while a completer thread holds it */
  int ready;
  char* err; /* NULL: success */
  PJRT_Event_OnReadyCallback cb[8];
  void* cb_arg[8];
  int ncb;
};

static PJRT_Event* new_event(void) {
  PJRT_Event* e = calloc(1, sizeof *e);
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
  e->refs = 1;
  return e;
}

static void event_unref(PJRT_Event* e) {
  pthread_mutex_lock(&e->mu);
  int left = --e->refs;
  pthread_mutex_unlock(&e->mu);
  if (left == 0) {
    free(e->err);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
    free(e);
  }
}

static void event_complete(PJRT_Event* e, const char* err) {
  pthread_mutex_lock(&e->mu);
  e->ready = 1;
  e->err = err ? strdup(err) : NULL;
  int n = e->ncb;
  e->ncb = 0;
  pthread_cond_broadcast(&e->cv);
  pthread_mutex_unlock(&e->mu);
  for (int i = 0; i < n; i++) e->cb[i](err ? new_error("%s", err) : NULL, e->cb_arg[i]);
}

static PJRT_Event* ready_event(const char* err) {
  PJRT_Event* e = new_event();
  event_complete(e, err);
  return e;
}

struct completer { PJRT_Event* e; int ms; char* err; };

static void* complete_later(void* p) {
  struct completer* c = p;
  struct timespec ts = {c->ms / 1000, (long)(c->ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
  event_complete(c->e, c->err);
  event_unref(c->e);
  free(c->err);
  free(c);
  return NULL;
}

/* event_after completes a new event after ms milliseconds (at once when ms <= 0). */
static PJRT_Event* event_after(int ms, const char* err) {
  if (ms <= 0) return ready_event(err);
  PJRT_Event* e = new_event();
  e->refs = 2;
  struct completer* c = malloc(sizeof *c);
  c->e = e;
  c->ms = ms;
  c->err = err ? strdup(err) : NULL;
  pthread_t t;
  if (pthread_create(&t, NULL, complete_later, c) != 0) {
    free(c->err);
    free(c);
    e->refs = 1;
    event_complete(e, err);
    return e;
  }
  pthread_detach(t);
  return e;
}

static PJRT_Error* event_destroy(PJRT_Event_Destroy_Args* a) { event_unref(a->event); return NULL; }
static PJRT_Error* event_is_ready(PJRT_Event_IsReady_Args* a) {
  pthread_mutex_lock(&a->event->mu);
  a->is_ready = a->event->ready;
  pthread_mutex_unlock(&a->event->mu);
  return NULL;
}
static PJRT_Error* event_error(PJRT_Event_Error_Args* a) {
  PJRT_Event* e = a->event;
  pthread_mutex_lock(&e->mu);
  PJRT_Error* err = !e->ready ? new_error("fake event: Error asked before the event is ready")
                    : e->err   ? new_error("%s", e->err)
                               : NULL;
  pthread_mutex_unlock(&e->mu);
  return err;
}
static PJRT_Error* event_await(PJRT_Event_Await_Args* a) {
  PJRT_Event* e = a->event;
  pthread_mutex_lock(&e->mu);
  while (!e->ready) pthread_cond_wait(&e->cv, &e->mu);
  PJRT_Error* err = e->err ? new_error("%s", e->err) : NULL;
  pthread_mutex_unlock(&e->mu);
  return err;
}
static PJRT_Error* event_on_ready(PJRT_Event_OnReady_Args* a) {
  PJRT_Event* e = a->event;
  pthread_mutex_lock(&e->mu);
  if (!e->ready) {
    if (e->ncb == 8) {
      pthread_mutex_unlock(&e->mu);
      return new_error("fake event: too many OnReady callbacks");
    }
    e->cb[e->ncb] = a->callback;
    e->cb_arg[e->ncb] = a->user_arg;
    e->ncb++;
    pthread_mutex_unlock(&e->mu);
    return NULL;
  }
  char* err = e->err ? strdup(e->err) : NULL;
  pthread_mutex_unlock(&e->mu);
  a->callback(err ? new_error("%s", err) : NULL, a->user_arg);
  free(err);
  return NULL;
}

/* ---------- client and devices ---------- */

struct PJRT_Device { int id; PJRT_Client* client; };
struct PJRT_DeviceDescription { char debug[64]; };
struct PJRT_Client {
  int ndev;
  struct PJRT_Device devs[8];
  PJRT_Device* dev_ptrs[8];
  struct PJRT_DeviceDescription desc[8];
};

static PJRT_Error* client_create(PJRT_Client_Create_Args* a) {
  int n = env_int("FAKE_PJRT_DEVICES", 1);
  if (n <= 0) return new_error_code(PJRT_Error_Code_UNAVAILABLE, "fake plugin has no devices");
  if (n > 8) n = 8;
  PJRT_Client* c = calloc(1, sizeof *c);
  c->ndev = n;
  for (int i = 0; i < n; i++) {
    c->devs[i].id = i;
    c->devs[i].client = c;
    c->dev_ptrs[i] = &c->devs[i];
    snprintf(c->desc[i].debug, sizeof c->desc[i].debug, "FakeDevice(id=%d)", i);
  }
  a->client = c;
  logf_("client_create");
  for (size_t i = 0; i < a->num_options; i++) {
    const PJRT_NamedValue* o = &a->create_options[i];
    switch (o->type) {
      case PJRT_NamedValue_kString: logf_("option %.*s=%.*s", (int)o->name_size, o->name, (int)o->value_size, o->string_value); break;
      case PJRT_NamedValue_kInt64: logf_("option %.*s=%lld", (int)o->name_size, o->name, (long long)o->int64_value); break;
      case PJRT_NamedValue_kFloat: logf_("option %.*s=%g", (int)o->name_size, o->name, (double)o->float_value); break;
      case PJRT_NamedValue_kBool: logf_("option %.*s=%s", (int)o->name_size, o->name, o->bool_value ? "true" : "false"); break;
      case PJRT_NamedValue_kInt64List:
        logf_("option %.*s=list of %zu, last %lld", (int)o->name_size, o->name, o->value_size,
              o->value_size ? (long long)o->int64_array_value[o->value_size - 1] : 0LL);
        break;
      default: break;
    }
  }
  return NULL;
}
static PJRT_Error* client_destroy(PJRT_Client_Destroy_Args* a) {
  free(a->client);
  logf_("client_destroy");
  return NULL;
}
static PJRT_Error* client_platform_name(PJRT_Client_PlatformName_Args* a) {
  a->platform_name = "fake";
  a->platform_name_size = 4;
  return NULL;
}
static PJRT_Error* client_platform_version(PJRT_Client_PlatformVersion_Args* a) {
  a->platform_version = "fake-1";
  a->platform_version_size = 6;
  return NULL;
}
static PJRT_Error* client_process_index(PJRT_Client_ProcessIndex_Args* a) { a->process_index = 0; return NULL; }
static PJRT_Error* client_devices(PJRT_Client_Devices_Args* a) {
  a->devices = a->client->dev_ptrs;
  a->num_devices = (size_t)a->client->ndev;
  return NULL;
}
static PJRT_Error* client_addressable_devices(PJRT_Client_AddressableDevices_Args* a) {
  a->addressable_devices = a->client->dev_ptrs;
  a->num_addressable_devices = (size_t)a->client->ndev;
  return NULL;
}
static PJRT_Error* device_local_hardware_id(PJRT_Device_LocalHardwareId_Args* a) { a->local_hardware_id = a->device->id; return NULL; }
static PJRT_Error* device_is_addressable(PJRT_Device_IsAddressable_Args* a) { a->is_addressable = true; return NULL; }
static PJRT_Error* device_get_description(PJRT_Device_GetDescription_Args* a) {
  a->device_description = &a->device->client->desc[a->device->id];
  return NULL;
}
static PJRT_Error* device_description_process_index(PJRT_DeviceDescription_ProcessIndex_Args* a) { a->process_index = 0; return NULL; }
static PJRT_Error* device_description_debug_string(PJRT_DeviceDescription_DebugString_Args* a) {
  a->debug_string = a->device_description->debug;
  a->debug_string_size = strlen(a->device_description->debug);
  return NULL;
}

/* ---------- buffers ---------- */

struct PJRT_Buffer {
  PJRT_Buffer_Type type;
  int64_t dims[16];
  size_t ndims;
  char* data; /* NULL once deleted (donated) */
  size_t size;
  PJRT_Device* device;
};

static size_t element_size(PJRT_Buffer_Type t) {
  switch (t) {
    case PJRT_Buffer_Type_PRED: case PJRT_Buffer_Type_S8: case PJRT_Buffer_Type_U8:
    case PJRT_Buffer_Type_F8E5M2: case PJRT_Buffer_Type_F8E4M3FN:
      return 1;
    case PJRT_Buffer_Type_S16: case PJRT_Buffer_Type_U16: case PJRT_Buffer_Type_F16: case PJRT_Buffer_Type_BF16:
      return 2;
    case PJRT_Buffer_Type_S32: case PJRT_Buffer_Type_U32: case PJRT_Buffer_Type_F32:
      return 4;
    case PJRT_Buffer_Type_S64: case PJRT_Buffer_Type_U64: case PJRT_Buffer_Type_F64: case PJRT_Buffer_Type_C64:
      return 8;
    case PJRT_Buffer_Type_C128:
      return 16;
    default:
      return 0;
  }
}

static PJRT_Error* buffer_from_host(PJRT_Client_BufferFromHostBuffer_Args* a) {
  if (failing("transfer")) return new_error("fake transfer failure");
  size_t es = element_size(a->type);
  if (es == 0) return new_error_code(PJRT_Error_Code_INVALID_ARGUMENT, "fake plugin: unsupported element type %d", (int)a->type);
  if (a->num_dims > 16) return new_error_code(PJRT_Error_Code_INVALID_ARGUMENT, "fake plugin: rank %zu", a->num_dims);
  PJRT_Buffer* b = calloc(1, sizeof *b);
  b->type = a->type;
  b->ndims = a->num_dims;
  size_t n = 1;
  for (size_t i = 0; i < a->num_dims; i++) {
    b->dims[i] = a->dims[i];
    n *= (size_t)a->dims[i];
  }
  b->size = n * es;
  b->data = malloc(b->size ? b->size : 1);
  memcpy(b->data, a->data, b->size);
  b->device = a->device;
  a->buffer = b;
  a->done_with_host_buffer = event_after(env_int("FAKE_PJRT_TRANSFER_DELAY_MS", 0), NULL);
  logf_("buffer_create");
  return NULL;
}
static PJRT_Error* buffer_destroy(PJRT_Buffer_Destroy_Args* a) {
  free(a->buffer->data);
  free(a->buffer);
  logf_("buffer_destroy");
  return NULL;
}
static PJRT_Error* buffer_element_type(PJRT_Buffer_ElementType_Args* a) { a->type = a->buffer->type; return NULL; }
static PJRT_Error* buffer_dimensions(PJRT_Buffer_Dimensions_Args* a) {
  a->dims = a->buffer->dims;
  a->num_dims = a->buffer->ndims;
  return NULL;
}
static PJRT_Error* buffer_device(PJRT_Buffer_Device_Args* a) { a->device = a->buffer->device; return NULL; }
static PJRT_Error* buffer_on_device_size(PJRT_Buffer_OnDeviceSizeInBytes_Args* a) {
  a->on_device_size_in_bytes = a->buffer->size;
  return NULL;
}
static PJRT_Error* buffer_delete(PJRT_Buffer_Delete_Args* a) {
  free(a->buffer->data);
  a->buffer->data = NULL;
  return NULL;
}
static PJRT_Error* buffer_is_deleted(PJRT_Buffer_IsDeleted_Args* a) { a->is_deleted = a->buffer->data == NULL; return NULL; }
static PJRT_Error* buffer_ready_event(PJRT_Buffer_ReadyEvent_Args* a) { a->event = ready_event(NULL); return NULL; }
static PJRT_Error* buffer_to_host(PJRT_Buffer_ToHostBuffer_Args* a) {
  PJRT_Buffer* b = a->src;
  if (a->dst == NULL) {
    a->dst_size = b->size;
    return NULL;
  }
  if (failing("tohost")) return new_error("fake device-to-host failure");
  if (b->data == NULL) return new_error_code(PJRT_Error_Code_FAILED_PRECONDITION, "fake plugin: buffer was deleted (donated)");
  if (a->dst_size < b->size)
    return new_error_code(PJRT_Error_Code_INVALID_ARGUMENT, "fake plugin: host buffer of %zu bytes is too small for %zu", a->dst_size, b->size);
  memcpy(a->dst, b->data, b->size);
  a->event = ready_event(NULL);
  return NULL;
}

/* ---------- executables ---------- */

struct PJRT_LoadedExecutable { char* code; size_t size; int nout; PJRT_Client* client; };
struct PJRT_Executable { char* code; size_t size; int nout; };

/* count_args counts the arguments of @main in MLIR text: the '%' between
   "@main(" and the matching ')'. -1 when there is no @main. */
static int count_args(const char* code, size_t size) {
  char* text = malloc(size + 1);
  memcpy(text, code, size);
  text[size] = 0;
  const char* p = strstr(text, "@main(");
  int n = -1;
  if (p) {
    n = 0;
    int depth = 0;
    for (p += 5; *p; p++) {
      if (*p == '(') depth++;
      else if (*p == ')' && --depth == 0) break;
      else if (*p == '%') n++;
    }
  }
  free(text);
  return n;
}

static PJRT_Error* load(PJRT_Client* client, const char* code, size_t size, PJRT_LoadedExecutable** out) {
  int n = count_args(code, size);
  if (n < 0) return new_error_code(PJRT_Error_Code_INVALID_ARGUMENT, "fake compiler: no @main function");
  PJRT_LoadedExecutable* e = calloc(1, sizeof *e);
  e->code = malloc(size + 1);
  memcpy(e->code, code, size);
  e->size = size;
  e->nout = n;
  e->client = client;
  *out = e;
  return NULL;
}

static PJRT_Error* client_compile(PJRT_Client_Compile_Args* a) {
  logf_("compile");
  int ms = env_int("FAKE_PJRT_COMPILE_DELAY_MS", 0);
  if (ms > 0) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  if (failing("compile")) return new_error_code(PJRT_Error_Code_INVALID_ARGUMENT, "fake compile failure");
  if (a->program->format_size != 4 || memcmp(a->program->format, "mlir", 4) != 0)
    return new_error_code(PJRT_Error_Code_INVALID_ARGUMENT, "fake compiler takes mlir, got %.*s", (int)a->program->format_size, a->program->format);
  return load(a->client, a->program->code, a->program->code_size, &a->executable);
}

static PJRT_Error* loaded_destroy(PJRT_LoadedExecutable_Destroy_Args* a) {
  logf_("exe_destroy %zu", a->executable->size);
  free(a->executable->code);
  free(a->executable);
  return NULL;
}
static PJRT_Error* loaded_get_executable(PJRT_LoadedExecutable_GetExecutable_Args* a) {
  PJRT_Executable* e = calloc(1, sizeof *e);
  e->code = malloc(a->loaded_executable->size + 1);
  memcpy(e->code, a->loaded_executable->code, a->loaded_executable->size);
  e->size = a->loaded_executable->size;
  e->nout = a->loaded_executable->nout;
  a->executable = e;
  return NULL;
}
static PJRT_Error* executable_destroy(PJRT_Executable_Destroy_Args* a) {
  free(a->executable->code);
  free(a->executable);
  return NULL;
}
static PJRT_Error* executable_name(PJRT_Executable_Name_Args* a) {
  a->executable_name = "fake_echo";
  a->executable_name_size = 9;
  return NULL;
}
static PJRT_Error* executable_num_outputs(PJRT_Executable_NumOutputs_Args* a) { a->num_outputs = (size_t)a->executable->nout; return NULL; }
static PJRT_Error* executable_memory_stats(PJRT_Executable_GetCompiledMemoryStats_Args* a) {
  a->generated_code_size_in_bytes = (int64_t)a->executable->size;
  a->argument_size_in_bytes = a->output_size_in_bytes = a->alias_size_in_bytes = a->temp_size_in_bytes = 0;
  a->host_generated_code_size_in_bytes = a->host_argument_size_in_bytes = a->host_output_size_in_bytes = 0;
  a->host_alias_size_in_bytes = a->host_temp_size_in_bytes = 0;
  return NULL;
}

static const char serial_magic[] = "FAKEPJRT1\n";

static void serialized_deleter(PJRT_SerializedExecutable* s) { free(s); }

static PJRT_Error* executable_serialize(PJRT_Executable_Serialize_Args* a) {
  if (failing("serialize")) return new_error_code(PJRT_Error_Code_UNIMPLEMENTED, "fake plugin: serialization not supported");
  size_t m = sizeof serial_magic - 1, n = a->executable->size;
  char* buf = malloc(m + n);
  memcpy(buf, serial_magic, m);
  memcpy(buf + m, a->executable->code, n);
  a->serialized_bytes = buf;
  a->serialized_bytes_size = m + n;
  a->serialized_executable = (PJRT_SerializedExecutable*)buf;
  a->serialized_executable_deleter = serialized_deleter;
  logf_("serialize");
  return NULL;
}
static PJRT_Error* executable_deserialize(PJRT_Executable_DeserializeAndLoad_Args* a) {
  logf_("deserialize");
  size_t m = sizeof serial_magic - 1;
  if (a->serialized_executable_size < m || memcmp(a->serialized_executable, serial_magic, m) != 0)
    return new_error_code(PJRT_Error_Code_INVALID_ARGUMENT, "fake plugin: not a serialized fake executable");
  return load(a->client, a->serialized_executable + m, a->serialized_executable_size - m, &a->loaded_executable);
}

static int donated(const PJRT_ExecuteOptions* o, size_t i) {
  if (!o) return 0;
  for (size_t k = 0; k < o->num_non_donatable_input_indices; k++)
    if (o->non_donatable_input_indices[k] == (int64_t)i) return 0;
  return 1;
}

static PJRT_Error* execute(PJRT_LoadedExecutable_Execute_Args* a) {
  PJRT_LoadedExecutable* e = a->executable;
  logf_("execute");
  if (failing("execute")) return new_error("fake execute failure");
  if (a->num_devices != 1) return new_error_code(PJRT_Error_Code_UNIMPLEMENTED, "fake plugin: %zu devices", a->num_devices);
  if ((int)a->num_args != e->nout)
    return new_error_code(PJRT_Error_Code_INVALID_ARGUMENT, "fake executable takes %d arguments, got %zu", e->nout, a->num_args);
  PJRT_Buffer* const* in = a->argument_lists[0];
  for (size_t i = 0; i < a->num_args; i++)
    if (in[i] == NULL || in[i]->data == NULL)
      return new_error_code(PJRT_Error_Code_INVALID_ARGUMENT, "fake executable: argument %zu is deleted", i);
  int extra = failing("outsize") ? 8 : 0;
  for (size_t i = 0; i < a->num_args; i++) {
    PJRT_Buffer* o = calloc(1, sizeof *o);
    *o = *in[i];
    if (donated(a->options, i) && !extra) { /* the output takes over the input's memory */
      in[i]->data = NULL;
      logf_("donate %zu", i);
    } else {
      o->data = calloc(1, o->size + extra);
      memcpy(o->data, in[i]->data, o->size);
      o->size += extra;
    }
    if (a->execute_device) o->device = a->execute_device;
    if (failing("nullout") && i == 0) { /* a broken plugin: no buffer for output 0 */
      free(o->data);
      free(o);
      continue;
    }
    a->output_lists[0][i] = o;
    logf_("buffer_create");
  }
  if (a->device_complete_events)
    a->device_complete_events[0] = event_after(env_int("FAKE_PJRT_DELAY_MS", 0), failing("event") ? "fake device fault" : NULL);
  return NULL;
}

/* ---------- table ---------- */

#define N_ENTRIES ((sizeof(PJRT_Api) - offsetof(PJRT_Api, PJRT_Error_Destroy)) / sizeof(void*))

static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static void init_table(void);

// GetPjrtApi fills the table once per loaded library, like a real plugin's
// static table: callers may already be using it when it is asked again.
const PJRT_Api* GetPjrtApi(void) {
  pthread_once(&table_once, init_table);
  return &table;
}

static void init_table(void) {
  memset(&table, 0, sizeof table);
  table.struct_size = (size_t)env_int("FAKE_PJRT_TABLE_BYTES", (int)sizeof table);
  table.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  table.pjrt_api_version.major_version = env_int("FAKE_PJRT_MAJOR", 0);
  table.pjrt_api_version.minor_version = env_int("FAKE_PJRT_MINOR", 70);
  void** fns = (void**)&table.PJRT_Error_Destroy;
  for (size_t i = 0; i < N_ENTRIES; i++) fns[i] = (void*)unimplemented;
  table.PJRT_Error_Destroy = error_destroy;
  table.PJRT_Error_Message = error_message;
  table.PJRT_Error_GetCode = error_code;
  table.PJRT_Plugin_Initialize = plugin_initialize;
  table.PJRT_Plugin_Attributes = plugin_attributes;
  table.PJRT_Event_Destroy = event_destroy;
  table.PJRT_Event_IsReady = event_is_ready;
  table.PJRT_Event_Error = event_error;
  table.PJRT_Event_Await = event_await;
  table.PJRT_Event_OnReady = event_on_ready;
  table.PJRT_Client_Create = client_create;
  table.PJRT_Client_Destroy = client_destroy;
  table.PJRT_Client_PlatformName = client_platform_name;
  table.PJRT_Client_ProcessIndex = client_process_index;
  table.PJRT_Client_PlatformVersion = client_platform_version;
  table.PJRT_Client_Devices = client_devices;
  table.PJRT_Client_AddressableDevices = client_addressable_devices;
  table.PJRT_Client_Compile = client_compile;
  table.PJRT_Client_BufferFromHostBuffer = buffer_from_host;
  table.PJRT_DeviceDescription_ProcessIndex = device_description_process_index;
  table.PJRT_DeviceDescription_DebugString = device_description_debug_string;
  table.PJRT_Device_GetDescription = device_get_description;
  table.PJRT_Device_IsAddressable = device_is_addressable;
  table.PJRT_Device_LocalHardwareId = device_local_hardware_id;
  table.PJRT_Executable_Destroy = executable_destroy;
  table.PJRT_Executable_Name = executable_name;
  table.PJRT_Executable_NumOutputs = executable_num_outputs;
  table.PJRT_Executable_Serialize = executable_serialize;
  table.PJRT_Executable_GetCompiledMemoryStats = executable_memory_stats;
  table.PJRT_Executable_DeserializeAndLoad = executable_deserialize;
  table.PJRT_LoadedExecutable_Destroy = loaded_destroy;
  table.PJRT_LoadedExecutable_GetExecutable = loaded_get_executable;
  table.PJRT_LoadedExecutable_Execute = execute;
  table.PJRT_Buffer_Destroy = buffer_destroy;
  table.PJRT_Buffer_ElementType = buffer_element_type;
  table.PJRT_Buffer_Dimensions = buffer_dimensions;
  table.PJRT_Buffer_Device = buffer_device;
  table.PJRT_Buffer_OnDeviceSizeInBytes = buffer_on_device_size;
  table.PJRT_Buffer_Delete = buffer_delete;
  table.PJRT_Buffer_IsDeleted = buffer_is_deleted;
  table.PJRT_Buffer_ReadyEvent = buffer_ready_event;
  table.PJRT_Buffer_ToHostBuffer = buffer_to_host;
  int null_entry = env_int("FAKE_PJRT_NULL_ENTRY", -1);
  if (null_entry >= 0 && (size_t)null_entry < N_ENTRIES) fns[null_entry] = NULL;
}
