//go:build cgo

package pjrt

// This file holds the one function exported to C; the preamble of a file
// with an //export may only declare.

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdint.h>
#include "pjrt_c_api.h"
*/
import "C"

// torchtpuEventReady is the PJRT_Event_OnReady callback (through
// tt_on_ready_cb): it may run on any plugin thread.
//
//export torchtpuEventReady
func torchtpuEventReady(err *C.PJRT_Error, handle C.uintptr_t) {
	eventReady(err, uintptr(handle))
}
