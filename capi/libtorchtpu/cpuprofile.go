package main

/*
#include "tt_types.h"
*/
import "C"

import "github.com/torchtpu/torchtpu/capi"

// The engine's Go CPU profile. Added within ABI version 1 (no existing
// function changed): a caller looks the symbols up.

// tt_cpu_profile_start starts the Go CPU profile of the engine into a new
// file at path (created or truncated): every thread while it runs Go code
// (host threads inside a call, the native backend's helpers, the device's
// queue), sampled 100 times a second; threads outside Go code show as
// runtime._ExternalCode. Read it with `go tool pprof -top libtorchtpu.so
// path`. It returns 0, or -1 and *err when a profile is already running
// or the file cannot be created.
//
//export tt_cpu_profile_start
func tt_cpu_profile_start(path *C.char, errOut **C.char) C.int32_t {
	return status(capi.Guard("tt_cpu_profile_start", func() error {
		if path == nil {
			return capi.Errorf("null path")
		}
		return capi.CPUProfileStart(C.GoString(path))
	}), errOut)
}

// tt_cpu_profile_stop stops the CPU profile tt_cpu_profile_start started
// and finishes its file. It returns 0, or -1 and *err when no profile is
// running or the file could not be written.
//
//export tt_cpu_profile_stop
func tt_cpu_profile_stop(errOut **C.char) C.int32_t {
	return status(capi.Guard("tt_cpu_profile_stop", func() error {
		_, err := capi.CPUProfileStop()
		return err
	}), errOut)
}
