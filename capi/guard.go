package capi

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Guard runs f and turns a panic inside it into an error that names the
// call and, briefly, where it happened. Every exported C function runs its
// body under Guard, so a bug in the engine is a Python exception, not a
// dead process.
func Guard(call string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: internal error (please report): %v%s", call, r, panicSite())
		}
	}()
	if err := f(); err != nil {
		return fmt.Errorf("%s: %w", call, err)
	}
	return nil
}

// panicSite returns " at FILE:LINE" of the innermost torchtpu frame below
// the panic, or "".
func panicSite() string {
	lines := strings.Split(string(debug.Stack()), "\n")
	// The stack reads: goroutine, then pairs (func, file:line). Skip the
	// runtime's and this file's frames.
	for i := 1; i+1 < len(lines); i += 2 {
		fn, loc := lines[i], strings.TrimSpace(lines[i+1])
		if strings.HasPrefix(fn, "runtime/") || strings.HasPrefix(fn, "panic(") ||
			strings.Contains(fn, "capi.Guard") || strings.Contains(fn, "capi.panicSite") ||
			strings.Contains(fn, "runtime/debug.Stack") {
			continue
		}
		if j := strings.LastIndex(loc, " +0x"); j > 0 {
			loc = loc[:j]
		}
		if k := strings.Index(loc, "torchtpu/"); k >= 0 {
			loc = loc[k:]
		}
		return " at " + loc
	}
	return ""
}
