//go:build cgo

package pjrt

import (
	"fmt"
	"reflect"
	"unsafe"

	gopjrt "github.com/gomlx/gopjrt/pjrt"
)

// The gopjrt binding (v0.10.0) keeps the C handles of its objects in
// unexported fields and offers no call that takes or returns them, so the
// few calls this package makes itself (capi_cgo.go) read them by
// reflection. The field paths are those of v0.10.0; TestBindingHandles
// fails when an upgrade moves them, and here a missing field is an error,
// never a crash.

func handleOf(obj any, path ...string) (unsafe.Pointer, error) {
	v := reflect.ValueOf(obj)
	for _, name := range path {
		if v.Kind() != reflect.Pointer || v.IsNil() {
			return nil, fmt.Errorf("gopjrt %T: nil before field %s (destroyed?)", obj, name)
		}
		v = v.Elem()
		if v.Kind() != reflect.Struct {
			return nil, fmt.Errorf("gopjrt %T: not a struct at field %s", obj, name)
		}
		v = v.FieldByName(name)
		if !v.IsValid() {
			return nil, fmt.Errorf("gopjrt %T has no field %s: the binding changed; update backend/pjrt/binding_cgo.go", obj, name)
		}
	}
	if v.Kind() != reflect.Pointer && v.Kind() != reflect.UnsafePointer {
		return nil, fmt.Errorf("gopjrt %T: field %v is a %v, not a C handle", obj, path, v.Kind())
	}
	if v.IsNil() {
		return nil, fmt.Errorf("gopjrt %T: the C handle is nil (destroyed?)", obj)
	}
	return v.UnsafePointer(), nil
}

func clientHandle(c *gopjrt.Client) (unsafe.Pointer, error) { return handleOf(c, "client", "c") }

func deviceHandle(d *gopjrt.Device) (unsafe.Pointer, error) { return handleOf(d, "cDevice") }

func executableHandle(e *gopjrt.LoadedExecutable) (unsafe.Pointer, error) {
	return handleOf(e, "wrapper", "c")
}
