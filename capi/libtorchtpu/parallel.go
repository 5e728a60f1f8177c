package main

/*
#include "tt_types.h"

// The host's parallel-for (tt_host_parallel_fn) and thread count, set by
// tt_set_host_parallel.
static tt_host_parallel_fn tt_host_run;
static tt_host_threads_fn tt_host_threads;

// tt_host_thread marks the threads that called into the engine from the
// host (tt_program_run): only there does a loop borrow the host's pool.
// The engine's own threads would each start a team of the host's.
static __thread int tt_host_thread;

static void tt_mark_host_thread(void) { tt_host_thread = 1; }
static int tt_on_host_thread(void) { return tt_host_thread; }

extern void ttHostBody(void *ctx);

static void tt_host_body(void *ctx) { ttHostBody(ctx); }

// tt_run_on_host runs the job ctx on up to n host threads; 1 when the
// host did, 0 when it declined (or this is not a host thread).
static int tt_run_on_host(int64_t n, uintptr_t ctx) {
	tt_host_parallel_fn f = tt_host_run;
	if (!f || !tt_host_thread) return 0;
	return f(n, tt_host_body, (void *)ctx) == 0;
}

static int32_t tt_threads_of_host(void) {
	tt_host_threads_fn f = tt_host_threads;
	return f ? f() : 0;
}

static void tt_set_host(tt_host_parallel_fn run, tt_host_threads_fn threads) {
	tt_host_run = run;
	tt_host_threads = threads;
}
*/
import "C"

import (
	"os"
	"runtime/cgo"
	"unsafe"

	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/capi"
)

// tt_set_host_parallel lends the host's thread pool to the native
// backend's parallel loops: run(n, body, ctx) calls body(ctx) on up to n
// of the host's threads at once (the calling thread included) and returns
// 0 when all calls have returned, or nonzero without calling body when it
// cannot lend threads from the calling thread; threads() is the host's
// thread count, which loops are split for. Inside PyTorch, run is backed
// by at::parallel_for and threads by at::get_num_threads, so the process
// keeps one pool of threads. Only loops of calls the host makes itself
// (tt_program_run) borrow the pool; the engine's own threads keep its
// helpers. run NULL keeps the loops on the engine's helpers, split for
// threads() when it is given (the host's thread count without its
// threads); both NULL give the engine its own count back. Returns 0, or
// -1 and *err.
//
//export tt_set_host_parallel
func tt_set_host_parallel(run C.tt_host_parallel_fn, threads C.tt_host_threads_fn, errOut **C.char) C.int32_t {
	err := capi.Guard("tt_set_host_parallel", func() error {
		C.tt_set_host(run, threads)
		if run == nil && threads == nil {
			native.SetHostPool(nil)
			return nil
		}
		if run == nil {
			native.SetHostPool(&native.HostPool{Threads: hostThreads})
			return nil
		}
		// lent per run (a run asks for the threads once), or loop by loop
		// with TORCHTPU_HOST_THREADS=1
		native.SetHostPool(&native.HostPool{Run: runOnHost, Threads: hostThreads,
			PerRun: os.Getenv("TORCHTPU_HOST_THREADS") != "1", OnCaller: onHostThread})
		return nil
	})
	setErr(errOut, err)
	if err != nil {
		return -1
	}
	return 0
}

// runOnHost runs body on the host's threads when the calling thread is the
// host's.
func runOnHost(n int, body func()) bool {
	h := cgo.NewHandle(body)
	defer h.Delete()
	return C.tt_run_on_host(C.int64_t(n), C.uintptr_t(h)) != 0
}

func hostThreads() int { return int(C.tt_threads_of_host()) }

// onHostThread reports whether the calling thread is one the host called
// the engine from (not a thread it lent).
func onHostThread() bool { return C.tt_on_host_thread() != 0 }

// markHostThread records that the calling thread is the host's.
func markHostThread() { C.tt_mark_host_thread() }

//export ttHostBody
func ttHostBody(ctx unsafe.Pointer) {
	// A panic here would cross the host's frames: body (the loop job's
	// work) keeps any panic of the loop for the caller, and the handle
	// is valid while the host runs the job.
	cgo.Handle(uintptr(ctx)).Value().(func())()
}
