//go:build amd64 && !purego

package native

import "golang.org/x/sys/cpu"

// dwc16 is the channel-vector depthwise kernel (fast_dwc16_amd64.s).
//
//go:noescape
func dwc16(p *dwcArgs)

// transpose16 writes dst[j][i] = src[i][j] for i < rows, j < cols (≤ 16;
// strides in bytes), source rows past rows read as zeros; destination row
// j gets its first rows lanes. With dst2 set, the even rows j go to dst at
// (j/2)·dstStride and the odd ones to dst2 (fast_dwc16_amd64.s).
//
//go:noescape
func transpose16(dst *float32, dstStride int, src *float32, srcStride int, rows, cols int, dst2 *float32)

var dwc16OK = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL
