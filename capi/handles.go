package capi

import (
	"fmt"
	"sync"

	"github.com/torchtpu/torchtpu/eager"
)

// Handle names an object owned by the engine on behalf of a C caller.
// Zero is never a valid handle.
type Handle uint64

// handles is the table of live objects. Handles are never reused within a
// process, so a stale handle is reported as freed, not confused with a new
// object.
var handles = struct {
	sync.Mutex
	next uint64
	objs map[Handle]any
}{objs: map[Handle]any{}}

// put registers obj and returns its new handle.
func put(obj any) Handle {
	handles.Lock()
	defer handles.Unlock()
	handles.next++
	h := Handle(handles.next)
	handles.objs[h] = obj
	return h
}

// kindName is how errors name an object kind.
func kindName(obj any) string {
	switch obj.(type) {
	case *Program:
		return "program"
	case *Result:
		return "result"
	case *eager.Buffer:
		return "buffer"
	case *Taken:
		return "output"
	case *Bound:
		return "bound call"
	}
	return fmt.Sprintf("%T", obj)
}

// get returns the object of handle h as a T, or an error naming h.
func get[T any](h Handle, want string) (T, error) {
	var zero T
	if h == 0 {
		return zero, fmt.Errorf("null %s handle", want)
	}
	handles.Lock()
	obj, ok := handles.objs[h]
	next := handles.next
	handles.Unlock()
	if !ok {
		if uint64(h) <= next {
			return zero, fmt.Errorf("%s handle %d was already freed", want, h)
		}
		return zero, fmt.Errorf("%s handle %d does not exist", want, h)
	}
	t, ok := obj.(T)
	if !ok {
		return zero, fmt.Errorf("handle %d is a %s, not a %s", h, kindName(obj), want)
	}
	return t, nil
}

// Free releases the object of handle h. Freeing a freed handle is an error,
// so that a double free in the caller is reported.
func Free(h Handle) error {
	if h == 0 {
		return fmt.Errorf("free: null handle")
	}
	handles.Lock()
	obj, ok := handles.objs[h]
	delete(handles.objs, h)
	next := handles.next
	handles.Unlock()
	if !ok {
		if uint64(h) <= next {
			return fmt.Errorf("free: handle %d was already freed", h)
		}
		return fmt.Errorf("free: handle %d does not exist", h)
	}
	switch o := obj.(type) {
	case interface{ release() }:
		o.release()
	case *eager.Buffer:
		o.Release()
	}
	return nil
}

// Live counts the live handles by kind (for leak checks and reports).
func Live() map[string]int {
	handles.Lock()
	defer handles.Unlock()
	out := map[string]int{}
	for _, o := range handles.objs {
		out[kindName(o)]++
	}
	return out
}
