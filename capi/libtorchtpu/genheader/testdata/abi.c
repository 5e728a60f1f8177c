/* A C client of libtorchtpu, built against the checked-in torchtpu.h: it
 * loads a program, asks for its info and runs it, and calls every entry
 * point with bad arguments, each of which must fail with a message, never
 * crash. Prints "ok" and exits 0 when every check holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../torchtpu.h"

static int failures = 0;

static void expect_error(const char *what, int failed, char *err, const char *want) {
	if (!failed || err == NULL || strstr(err, want) == NULL) {
		fprintf(stderr, "%s: want an error containing \"%s\", got failed=%d err=%s\n", what, want, failed,
		        err ? err : "(null)");
		failures++;
	}
	if (err) tt_string_free(err);
}

/* CHECK evaluates the failing call (which sets err) before looking at err. */
#define CHECK(what, failing_call, want)               \
	do {                                          \
		err = NULL;                           \
		int failed_ = (failing_call);         \
		expect_error(what, failed_, err, want); \
	} while (0)

static char *read_file(const char *path, long *n) {
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	*n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc(*n);
	if (fread(b, 1, *n, f) != (size_t)*n) { fclose(f); free(b); return NULL; }
	fclose(f);
	return b;
}

int main(int argc, char **argv) {
	char *err = NULL;
	if (tt_abi_version() != TT_ABI_VERSION) { fprintf(stderr, "abi version mismatch\n"); return 1; }
	char *v = tt_version();
	if (!v || !strstr(v, "\"abi\"")) { fprintf(stderr, "version: %s\n", v ? v : "(null)"); failures++; }
	tt_string_free(v);

	/* the fixture add_float32_float32: x f32[2,3,5] + y f32[3,5] */
	long n = 0;
	char *pt2 = argc > 1 ? read_file(argv[1], &n) : NULL;
	if (!pt2) { fprintf(stderr, "cannot read %s\n", argc > 1 ? argv[1] : "(no path)"); return 1; }
	uint64_t prog = tt_program_load(pt2, n, "{\"cache_dir\": \"-\"}", &err);
	if (!prog) { fprintf(stderr, "load: %s\n", err); return 1; }
	char *info = tt_program_info(prog, &err);
	if (!info || !strstr(info, "\"inputs\"")) { fprintf(stderr, "info: %s\n", err); failures++; }
	tt_string_free(info);

	/* bad calls: every one an error with a message */
	CHECK("load garbage", tt_program_load("garbage", 7, NULL, &err) == 0, "read archive");
	CHECK("load null", tt_program_load(NULL, 0, NULL, &err) == 0, "read archive");
	CHECK("load half", tt_program_load(pt2, n / 2, NULL, &err) == 0, "archive");
	CHECK("bad options", tt_program_load(pt2, n, "{not json", &err) == 0, "options");
	CHECK("free 0", tt_free(0, &err) == -1, "null handle");
	CHECK("free unknown", tt_free(987654321, &err) == -1, "does not exist");
	CHECK("info unknown", tt_program_info(987654321, &err) == NULL, "does not exist");
	CHECK("run null inputs", tt_program_run(prog, 2, NULL, &err) == 0, "null tensor array");
	CHECK("run negative n", tt_program_run(prog, -3, NULL, &err) == 0, "negative tensor count");
	CHECK("count unknown", tt_result_count(prog, &err) == -1, "is a program, not a result");
	CHECK("copy unknown", tt_result_copy(42424242, 0, NULL, 0, &err) == -1, "does not exist");
	float x[30], y[15], out[30];
	for (int i = 0; i < 30; i++) x[i] = (float)i;
	for (int i = 0; i < 15; i++) y[i] = 0.5f * (float)i;
	int64_t shape0[3] = {2, 3, 5}, shape1[2] = {3, 5}, bad_strides[2] = {5, -1};
	tt_tensor in[2] = {{x, sizeof x, 6, 3, shape0, NULL}, {y, sizeof y, 6, 2, shape1, NULL}};
	uint64_t res = tt_program_run(prog, 2, in, &err);
	if (!res) { fprintf(stderr, "run: %s\n", err); return 1; }
	int32_t dt[1], nd[1];
	int64_t shapes[TT_MAX_RANK];
	if (tt_result_count(res, &err) != 1 || tt_result_describe(res, 1, dt, nd, shapes, &err) != 0 || dt[0] != 6 ||
	    nd[0] != 3 || shapes[0] != 2 || shapes[1] != 3 || shapes[2] != 5 ||
	    tt_result_copy(res, 0, out, sizeof out, &err) != 0) {
		fprintf(stderr, "result: %s\n", err ? err : "wrong meta");
		failures++;
	}
	for (int i = 0; i < 30; i++)
		if (out[i] != x[i] + y[i % 15]) { fprintf(stderr, "out[%d] = %g\n", i, out[i]); failures++; }
	CHECK("copy short", tt_result_copy(res, 0, out, 8, &err) == -1, "destination has 8 bytes");
	CHECK("copy index", tt_result_copy(res, 5, out, sizeof out, &err) == -1, "out of range");
	CHECK("describe count", tt_result_describe(res, 3, dt, nd, shapes, &err) == -1, "asked for 3");
	tt_free(res, NULL);
	CHECK("double free", tt_free(res, &err) == -1, "already freed");
	in[1].strides = bad_strides;
	CHECK("negative stride", tt_program_run(prog, 2, in, &err) == 0, "negative stride");
	in[1].strides = NULL;
	in[1].extent = 8;
	CHECK("short extent", tt_program_run(prog, 2, in, &err) == 0, "past the 8 bytes");
	in[1].extent = sizeof y;
	in[1].dtype = 77;
	CHECK("bad dtype", tt_program_run(prog, 2, in, &err) == 0, "dtype code 77");
	in[1].dtype = 6;
	in[1].ndim = 99;
	CHECK("bad rank", tt_program_run(prog, 2, in, &err) == 0, "rank 99");
	in[1].ndim = 2;
	CHECK("one input", tt_program_run(prog, 1, in, &err) == 0, "2 user inputs, 1 given");
	tt_free(prog, NULL);
	CHECK("freed program", tt_program_run(prog, 2, in, &err) == 0, "already freed");
	free(pt2);
	if (failures) { fprintf(stderr, "%d checks failed\n", failures); return 1; }
	printf("ok\n");
	return 0;
}
