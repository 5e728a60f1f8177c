// Package rowsum sums rows of float32 for package native's reductions
// (reduce's fast fold, the reduce-fused groups, the row pipelines), and
// gives their vector maximum; it knows nothing of tensors or ops.
//
// Sums go in 64 slots instead of one chain: element i of a row goes to
// slot i%64 (each slot summed in order), and the slots are added in a
// fixed tree at the end (sixteen lanes of four vector accumulators,
// pairwise). One chain waits on every add (four cycles each: a 768-wide
// layer-norm row took 3000 cycles per sum); the order of a reduction is
// the implementation's to choose (StableHLO leaves it unspecified), and
// PyTorch's own kernels sum in vector lanes too. The slots are the same
// whether a row comes whole or in chunks, with or without AVX-512, so
// fused and unfused reductions give the same bits. A NaN total, or a zero
// one from a -0 start, is summed again in one chain, for the generic
// fold's NaN and signed zero.
package rowsum

import "math"

// Slots accumulates one row's elements in their slots (the zero value is
// an empty row), for rows that come in chunks.
type Slots struct{ s [64]float32 }

// Add adds x, the row's elements from position pos on.
func (r *Slots) Add(x []float32, pos int) {
	for len(x) > 0 && pos%64 != 0 { // up to a whole block
		r.s[pos%64] += x[0]
		x, pos = x[1:], pos+1
	}
	if b := len(x) / 64; b > 0 {
		if sumSIMDOK {
			sum64add(&r.s, &x[0], b)
		} else {
			for i := 0; i < b*64; i += 64 {
				blk := (*[64]float32)(x[i:])
				for j := range r.s {
					r.s[j] += blk[j]
				}
			}
		}
		x = x[b*64:]
	}
	for j, v := range x {
		r.s[j] += v
	}
}

// Total returns the slots' sum: the four accumulators pairwise, then the
// sixteen lanes by halves (8, 4, 2, 1 apart), as the vector form adds them.
// It is the slots' total alone, without the one-chain redo that Sum does
// for a NaN or zero result.
func (r *Slots) Total() float32 {
	var l [16]float32
	for j := range l {
		l[j] = (r.s[j] + r.s[16+j]) + (r.s[32+j] + r.s[48+j])
	}
	for h := 8; h >= 1; h /= 2 {
		for j := 0; j < h; j++ {
			l[j] += l[j+h]
		}
	}
	return l[0]
}

// Sum returns init + Σ x (x a whole row) in the slots' order, or in one
// chain where that is NaN or a zero from a -0 init.
func Sum(init float32, x []float32) float32 {
	if sumSIMDOK && len(x) > 0 {
		var total float32
		sumRows32x(&x[0], len(x), 1, &total)
		return sumResult(init, total, x)
	}
	var r Slots
	r.Add(x, 0)
	return sumResult(init, r.Total(), x)
}

// sumResult is init + total, or the one-chain sum of x where that differs
// in more than the last bits of rounding (NaN's bits, a zero's sign).
func sumResult(init, total float32, x []float32) float32 {
	t := init + total
	if t != t || t == 0 && math.Signbit(float64(init)) {
		t = init
		for _, v := range x {
			t += v
		}
	}
	return t
}

// HasMax reports whether Max runs here (AVX2 or AVX-512; false in a purego
// build).
func HasMax() bool { return sumSIMDOK }

// Max returns the maximum of x in sixteen vector lanes and whether an
// element was NaN (the maximum is then not the fold's); it needs HasMax
// and at least 8 elements.
func Max(x []float32) (m float32, nan bool) {
	maxRows32x(&x[0], len(x), 1, &m, &nan)
	return m, nan
}

// SumRows sets d[r] = Sum(init, x[r·n:(r+1)·n]) for each row r < len(d)
// of x (rows end to end): one vector loop for all the rows where Sum has
// one, the same bits.
func SumRows(init float32, x []float32, n int, d []float32) {
	rows := len(d)
	if n <= 0 || rows == 0 {
		for r := range d {
			d[r] = init
		}
		return
	}
	x = x[:rows*n]
	if !sumSIMDOK {
		for r := range d {
			d[r] = Sum(init, x[r*n:(r+1)*n])
		}
		return
	}
	sumRows32x(&x[0], n, rows, &d[0])
	for r, total := range d {
		d[r] = sumResult(init, total, x[r*n:(r+1)*n])
	}
}

// MaxRows sets d[r] to the vector maximum of row r of x (rows of n ≥ 8
// elements end to end, as Max) and nan[r] to whether the row held a NaN;
// it needs HasMax.
func MaxRows(x []float32, n int, d []float32, nan []bool) {
	rows := len(d)
	if rows == 0 {
		return
	}
	x, nan = x[:rows*n], nan[:rows]
	maxRows32x(&x[0], n, rows, &d[0], &nan[0])
}
