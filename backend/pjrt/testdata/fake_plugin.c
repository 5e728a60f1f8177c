// A fake PJRT plugin for torchtpu's tests: it has the PJRT_Api table layout
// of a real plugin, answers initialization, and refuses to create clients.
// Its behaviour is steered by environment variables read in GetPjrtApi:
//   FAKE_PJRT_MAJOR, FAKE_PJRT_MINOR  the API version it reports
//   FAKE_PJRT_NULL_ENTRY=N            leave function pointer N NULL
//   FAKE_PJRT_TABLE_BYTES=N           the struct_size it reports
//   FAKE_PJRT_STABLEHLO=MAJOR.MINOR.PATCH  its stablehlo_current_version attribute
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define N_ENTRIES 160

typedef void* (*entry_fn)(void* args);

struct version { size_t struct_size; void* ext; int major; int minor; };
struct api { size_t struct_size; void* ext; struct version version; entry_fn fns[N_ENTRIES]; };

struct fake_error { const char* msg; int code; };

static struct fake_error* new_error(const char* msg) {
  struct fake_error* e = malloc(sizeof *e);
  e->msg = msg;
  e->code = 12; /* UNIMPLEMENTED */
  return e;
}

struct error_destroy_args { size_t struct_size; void* ext; struct fake_error* error; };
struct error_message_args { size_t struct_size; void* ext; const struct fake_error* error; const char* message; size_t message_size; };
struct error_code_args { size_t struct_size; void* ext; const struct fake_error* error; int code; };
struct attributes_args { size_t struct_size; void* ext; const void* attributes; size_t num_attributes; };

static void* error_destroy(void* a) { free(((struct error_destroy_args*)a)->error); return NULL; }
static void* error_message(void* a) {
  struct error_message_args* args = a;
  args->message = args->error->msg;
  args->message_size = strlen(args->error->msg);
  return NULL;
}
static void* error_code(void* a) { ((struct error_code_args*)a)->code = ((struct error_code_args*)a)->error->code; return NULL; }
static void* plugin_initialize(void* a) { (void)a; return NULL; }
struct named_value {
  size_t struct_size; void* ext; const char* name; size_t name_size;
  int type; /* 2 = int64 list */
  const long long* int64_array_value; size_t value_size;
};
static long long shlo_version[3];
static struct named_value attrs[1];

static void* plugin_attributes(void* a) {
  struct attributes_args* args = a;
  args->attributes = NULL;
  args->num_attributes = 0;
  const char* v = getenv("FAKE_PJRT_STABLEHLO");
  if (v && *v) {
    char* end;
    shlo_version[0] = strtoll(v, &end, 10);
    shlo_version[1] = *end ? strtoll(end + 1, &end, 10) : 0;
    shlo_version[2] = *end ? strtoll(end + 1, &end, 10) : 0;
    attrs[0].struct_size = sizeof attrs[0];
    attrs[0].name = "stablehlo_current_version";
    attrs[0].name_size = strlen(attrs[0].name);
    attrs[0].type = 2;
    attrs[0].int64_array_value = shlo_version;
    attrs[0].value_size = 3;
    args->attributes = attrs;
    args->num_attributes = 1;
  }
  return NULL;
}
static void* client_create(void* a) { (void)a; return new_error("fake plugin has no devices"); }
static void* unimplemented(void* a) { (void)a; return new_error("fake plugin: entry point not implemented"); }

static struct api table;

static int env_int(const char* name, int def) {
  const char* v = getenv(name);
  return v && *v ? atoi(v) : def;
}

const struct api* GetPjrtApi(void) {
  table.struct_size = (size_t)env_int("FAKE_PJRT_TABLE_BYTES", (int)sizeof table);
  table.ext = NULL;
  table.version.struct_size = sizeof table.version;
  table.version.major = env_int("FAKE_PJRT_MAJOR", 0);
  table.version.minor = env_int("FAKE_PJRT_MINOR", 70);
  for (int i = 0; i < N_ENTRIES; i++) table.fns[i] = unimplemented;
  table.fns[0] = error_destroy;
  table.fns[1] = error_message;
  table.fns[2] = error_code;
  table.fns[3] = plugin_initialize;
  table.fns[4] = plugin_attributes;
  table.fns[10] = client_create;
  int null_entry = env_int("FAKE_PJRT_NULL_ENTRY", -1);
  if (null_entry >= 0 && null_entry < N_ENTRIES) table.fns[null_entry] = NULL;
  return &table;
}
