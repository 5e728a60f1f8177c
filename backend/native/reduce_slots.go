package native

import "math"

// Float64 sums over dims around the kept ones (batch-norm statistics: dims
// 0, 2 and 3 of NCHW) add each output's elements in four interleaved
// chains: element p of an output's sequence (input order) goes to chain
// p mod 4, and the total is init + ((s0 + s1) + (s2 + s3)). One chain
// waits on every add (four cycles each); four hide that latency. The order
// is the implementation's to choose (StableHLO leaves it unspecified);
// the fused and unfused paths (fuse_reduce_cols.go, reduce_middle.go)
// choose the same one, so they give the same bits. A NaN total, or a zero
// one from a -0 init, is summed again in one chain, for the sequential
// fold's NaN (the first) and signed zero.

// slots4 holds the four chains of one output.
type slots4 [4]float64

// add adds x, the output's elements from position pos on.
func (s *slots4) add(x []float64, pos int) {
	for len(x) > 0 && pos&3 != 0 {
		s[pos&3] += x[0]
		x, pos = x[1:], pos+1
	}
	a, b, c, d := s[0], s[1], s[2], s[3]
	for ; len(x) >= 4; x = x[4:] {
		a += x[0]
		b += x[1]
		c += x[2]
		d += x[3]
	}
	s[0], s[1], s[2], s[3] = a, b, c, d
	for i, v := range x {
		s[i] += v
	}
}

// add32 is add for float32 elements, each converted to float64.
func (s *slots4) add32(x []float32, pos int) {
	for len(x) > 0 && pos&3 != 0 {
		s[pos&3] += float64(x[0])
		x, pos = x[1:], pos+1
	}
	a, b, c, d := s[0], s[1], s[2], s[3]
	for ; len(x) >= 4; x = x[4:] {
		a += float64(x[0])
		b += float64(x[1])
		c += float64(x[2])
		d += float64(x[3])
	}
	s[0], s[1], s[2], s[3] = a, b, c, d
	for i, v := range x {
		s[i] += float64(v)
	}
}

// total returns init plus the chains, and false when the output must be
// summed again in one chain (a NaN total, or a zero one from a -0 init).
func (s *slots4) total(init float64) (float64, bool) {
	t := init + ((s[0] + s[1]) + (s[2] + s[3]))
	return t, t == t && !(t == 0 && math.Signbit(init))
}

// addSquaredDeviation adds (float64(x[i]) - m)² for the elements x, from
// position pos on: the values the ops convert, subtract and multiply give.
func (s *slots4) addSquaredDeviation(x []float32, m float64, pos int) {
	sq := func(v float32) float64 { d := float64(v) - m; return d * d }
	for len(x) > 0 && pos&3 != 0 {
		s[pos&3] += sq(x[0])
		x, pos = x[1:], pos+1
	}
	a, b, c, d := s[0], s[1], s[2], s[3]
	for ; len(x) >= 4; x = x[4:] {
		a += sq(x[0])
		b += sq(x[1])
		c += sq(x[2])
		d += sq(x[3])
	}
	s[0], s[1], s[2], s[3] = a, b, c, d
	for i, v := range x {
		s[i] += sq(v)
	}
}
