package main

/*
#include "tt_types.h"

static const char *tt_call_lowering(tt_lowering_fn f, const char *op, const char *call) { return f(op, call); }
*/
import "C"

import (
	"errors"
	"strings"
	"unsafe"

	"github.com/torchtpu/torchtpu/capi"
)

// tt_register_stablehlo registers a user's op (name "mylib::op.default"
// and its PyTorch schema) lowered by the StableHLO modules fn returns, one
// per new argument signature. It returns 0, or -1 and *err.
//
//export tt_register_stablehlo
func tt_register_stablehlo(name, schema *C.char, fn C.tt_lowering_fn, errOut **C.char) C.int32_t {
	err := capi.Guard("tt_register_stablehlo", func() error {
		if name == nil || schema == nil || fn == nil {
			return capi.Errorf("null op name, schema or function")
		}
		return capi.RegisterStableHLO(C.GoString(name), C.GoString(schema), func(op string, call []byte) (string, error) {
			cop, ccall := C.CString(op), C.CString(string(call))
			defer C.free(unsafe.Pointer(cop))
			defer C.free(unsafe.Pointer(ccall))
			p := C.tt_call_lowering(fn, cop, ccall)
			if p == nil {
				return "", errors.New("the lowering function returned nothing")
			}
			text := C.GoString(p)
			if msg, ok := strings.CutPrefix(text, "\x01"); ok {
				return "", errors.New(msg)
			}
			return text, nil
		})
	})
	if err != nil {
		setErr(errOut, err)
		return -1
	}
	return 0
}
