package capi

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
)

// The engine's Go CPU profile (tt_cpu_profile_start, tt_cpu_profile_stop):
// runtime/pprof sampling every thread that runs Go code — the calls from
// the host while they are in the engine, the native backend's helper
// threads, the device's queue — 100 times a second, into a pprof file
// that `go tool pprof -top libtorchtpu.so FILE` reads. Samples of threads
// outside Go code show as runtime._ExternalCode: Go takes them from a
// process-wide timer and places them poorly (perf sees the host's side).
var cpuProfile struct {
	sync.Mutex
	f    *os.File // nil when no profile runs
	path string
}

// CPUProfileStart starts the Go CPU profile into a new file at path
// (created or truncated). It fails when a profile is already running,
// this one or another of the process's Go code.
func CPUProfileStart(path string) error {
	if path == "" {
		return errors.New("empty path for the CPU profile")
	}
	cpuProfile.Lock()
	defer cpuProfile.Unlock()
	if cpuProfile.f != nil {
		return fmt.Errorf("a CPU profile is already running into %s: stop it first", cpuProfile.path)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot create the CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("cannot start the CPU profile into %s: %w", path, err)
	}
	cpuProfile.f, cpuProfile.path = f, path
	return nil
}

// CPUProfileStop stops the running CPU profile, writes the rest of it and
// closes its file, whose path it returns.
func CPUProfileStop() (string, error) {
	cpuProfile.Lock()
	defer cpuProfile.Unlock()
	f, path := cpuProfile.f, cpuProfile.path
	if f == nil {
		return "", errors.New("no CPU profile is running")
	}
	pprof.StopCPUProfile()
	cpuProfile.f, cpuProfile.path = nil, ""
	if err := f.Close(); err != nil {
		return path, fmt.Errorf("writing the CPU profile %s: %w", path, err)
	}
	return path, nil
}
