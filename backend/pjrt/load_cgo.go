//go:build cgo

package pjrt

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <stdint.h>

typedef const void* (*torchtpu_get_api_fn)(void);

static const void* torchtpu_call_get_api(void* f) { return ((torchtpu_get_api_fn)f)(); }
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"unsafe"

	gopjrt "github.com/gomlx/gopjrt/pjrt"
)

// APIInfo is what a plugin's PJRT_Api table says about itself.
type APIInfo struct {
	StructSize   uint64
	Major, Minor int
}

var (
	loadMu sync.Mutex
	loaded = map[string]*gopjrt.Plugin{} // by absolute path
	apis   = map[string]unsafe.Pointer{} // the plugins' PJRT_Api tables, by path
)

// CanLoad reports whether this build can load plugins (it has cgo).
const CanLoad = true

// Load opens a plugin file, checks it, and returns the binding's plugin.
// The library stays loaded for the life of the process.
func Load(path string) (*gopjrt.Plugin, APIInfo, error) {
	p, _, info, err := load(path)
	return p, info, err
}

// load is Load that also returns the plugin's PJRT_Api table, for the
// calls this package makes itself.
func load(path string) (*gopjrt.Plugin, unsafe.Pointer, APIInfo, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	api, info, err := openAPI(path)
	if err != nil {
		return nil, nil, info, err
	}
	if p, ok := loaded[path]; ok {
		return p, apis[path], info, nil
	}
	name := fmt.Sprintf("torchtpu-%d", len(loaded))
	if err := gopjrt.RegisterPreloadedPlugin(name, uintptr(api)); err != nil {
		return nil, nil, info, fmt.Errorf("pjrt plugin %s: initialize: %w", path, err)
	}
	p, err := gopjrt.GetPlugin(name)
	if err != nil {
		return nil, nil, info, fmt.Errorf("pjrt plugin %s: %w", path, err)
	}
	loaded[path] = p
	apis[path] = api
	return p, api, info, nil
}

// Inspect opens a plugin file and checks its API table without
// initializing it.
func Inspect(path string) (APIInfo, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	_, info, err := openAPI(path)
	return info, err
}

func openAPI(path string) (unsafe.Pointer, APIInfo, error) {
	var info APIInfo
	if _, err := os.Stat(path); err != nil {
		return nil, info, fmt.Errorf("pjrt plugin: %w", err)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	h := C.dlopen(cpath, C.RTLD_NOW|C.RTLD_LOCAL)
	if h == nil {
		return nil, info, fmt.Errorf("pjrt plugin %s: not a loadable shared library: %s", path, C.GoString(C.dlerror()))
	}
	csym := C.CString("GetPjrtApi")
	defer C.free(unsafe.Pointer(csym))
	f := C.dlsym(h, csym)
	if f == nil {
		return nil, info, fmt.Errorf("pjrt plugin %s: not a PJRT plugin: no GetPjrtApi symbol", path)
	}
	api := C.torchtpu_call_get_api(f)
	if api == nil {
		return nil, info, fmt.Errorf("pjrt plugin %s: GetPjrtApi returned NULL", path)
	}
	head := unsafe.Slice((*byte)(api), apiHeaderBytes)
	info.StructSize = binary.LittleEndian.Uint64(head[0:])
	info.Major = int(int32(binary.LittleEndian.Uint32(head[32:])))
	info.Minor = int(int32(binary.LittleEndian.Uint32(head[36:])))
	if err := checkAPI(info); err != nil {
		return nil, info, fmt.Errorf("pjrt plugin %s: %w", path, err)
	}
	fns := unsafe.Slice((*uintptr)(unsafe.Add(api, apiHeaderBytes)), len(apiEntries))
	for i, fn := range fns {
		if fn == 0 {
			return nil, info, fmt.Errorf("pjrt plugin %s: entry point %s is missing (NULL)", path, apiEntries[i])
		}
	}
	for _, f := range apiFarEntries {
		if *(*uintptr)(unsafe.Add(api, apiHeaderBytes+8*f.Index)) == 0 {
			return nil, info, fmt.Errorf("pjrt plugin %s: entry point %s is missing (NULL)", path, f.Name)
		}
	}
	return api, info, nil
}
