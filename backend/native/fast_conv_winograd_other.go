//go:build !amd64 || purego

package native

import "unsafe"

func winoIn8(p *winoInArgs)   { winoIn8Go(p) }
func winoOut8(p *winoOutArgs) { winoOut8Go(p) }

func copyFinite(dst, src *float32, n int) bool {
	return copyFiniteGo(unsafe.Slice(dst, n), unsafe.Slice(src, n))
}

// winoSIMD: no vector transforms here (the Winograd path declines).
const winoSIMD = false
