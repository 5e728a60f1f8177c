//go:build !amd64 || purego

package native

// No vector loops here: the fused loops use their Go kernels, and these
// are never called.
var simdRows = false

// rowsWide: no AVX-512 paths either.
var rowsWide = false

func binRR(op int, d, x, y *float32, n int)                        { panic("no vector loops") }
func binRS(op int, d, x *float32, c float32, n int)                { panic("no vector loops") }
func binSR(op int, d *float32, c float32, y *float32, n int)       { panic("no vector loops") }
func selSR(p int, d, a *float32, b, xs float32, y *float32, n int) { panic("no vector loops") }
func selRR(p int, d, a *float32, b float32, x, y *float32, n int)  { panic("no vector loops") }
func nanSel(d, a, y []float32)                                     { panic("no vector loops") }

func selPRR32(d, p, x, y *float32, n int) { panic("no vector loops") }

func boolsF32(d *float32, b *byte, n int) { panic("no vector loops") }

func selRRR(p int, d, a, b, x, y *float32, n int) { panic("no vector loops") }

func cvtF32F64(d *float64, x *float32, n int) { panic("no vector loops") }

func addF32F64(acc *float64, x *float32, n int) { panic("no vector loops") }

func rowsBatched(op int) bool { return false }

func binRows(op int, d, a, b *float32, n, rows, sa, sb int) { panic("no vector loops") }
func binRowsV(op int, d, a, v *float32, n, rows, sa int)    { panic("no vector loops") }
func binVRows(op int, d, a, v *float32, n, rows, sa int)    { panic("no vector loops") }

func selMask(d, x []float32, m []byte, c float32, keep bool) { panic("no vector loops") }
