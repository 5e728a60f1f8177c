package native

// gemv computes y[j] = Σ_p x[p]·w[j·ldw+p] for j < len(y): a linear layer
// on one token (x·Wᵀ, W [n, k] row-major), each row of w read once, in
// place. Four rows at a time in AVX-512 where the CPU has it, the rest
// with dot32.
func gemv(x, w []float32, ldw int, y []float32) {
	k, n := len(x), len(y)
	if n == 0 {
		return
	}
	if k == 0 {
		clear(y)
		return
	}
	_ = w[(n-1)*ldw+k-1]
	j := 0
	if gemvSIMDOK {
		if rows := n / 4 * 4; rows > 0 {
			gemvRows4(&x[0], &w[0], k, ldw, &y[0], rows, 1<<(k%16)-1)
			j = rows
		}
	}
	for ; j < n; j++ {
		y[j] = dot32(x, w[j*ldw:j*ldw+k])
	}
}

// gemvParallel is gemv with the rows of w shared among the threads (each
// row's dot product is computed whole by one thread, so the split does not
// change the result).
func gemvParallel(x, w []float32, ldw int, y []float32) {
	n, k := len(y), len(x)
	parallelRange(n, max(4, gemvGrain/max(k, 1)), func(lo, hi int) {
		// rows in fours: the parts' bounds on multiples of 4 but the last
		lo &^= 3
		if hi < n {
			hi &^= 3
		}
		gemv(x, w[lo*ldw:], ldw, y[lo:hi])
	})
}
