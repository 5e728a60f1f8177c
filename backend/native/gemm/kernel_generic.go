package gemm

// microGeneric is the portable micro-kernel: C[mr×nr] += Apanel·Bpanel.
func microGeneric(kb int, a, b, c []float32, ldc int) {
	var acc [mr][nr]float32
	for q := 0; q < kb; q++ {
		bq := b[q*nr : q*nr+nr]
		aq := a[q*mr : q*mr+mr]
		for i, av := range aq {
			row := &acc[i]
			for j, bv := range bq {
				row[j] += av * bv
			}
		}
	}
	for i := 0; i < mr; i++ {
		row := c[i*ldc : i*ldc+nr]
		for j := range row {
			row[j] += acc[i][j]
		}
	}
}
