package native

// Fast paths (fast_*.go) wrap the kernel of an op: they run the cases they
// cover and hand the others to the kernel they wrap. A file's init runs in
// file name order, so the kernel may not be registered yet when a fast
// path installs itself: then register applies the wrapper when it comes.

import "sync/atomic"

// fastHits counts the ops a fast path ran (tests check that it is wired).
var fastHits atomic.Int64

// kernelWrappers holds the wrappers of kernels not registered yet.
var kernelWrappers = map[string]func(Kernel) Kernel{}

// wrapKernel wraps the kernel of name now, or when it is registered.
func wrapKernel(name string, wrap func(Kernel) Kernel) {
	if k, ok := kernels[name]; ok {
		kernels[name] = wrap(k)
		return
	}
	if prev := kernelWrappers[name]; prev != nil {
		wrap = func(k Kernel) Kernel { return wrap(prev(k)) }
	}
	kernelWrappers[name] = wrap
}
