package gemm

// packAPanel packs mm (≤ mr) rows of A starting at (i0, p0), kb deep, into
// one micro-panel stored k-major (mr values per step), zero padding rows
// past mm.
func packAPanel(ks *kernelSet, p []float32, a Matrix, i0, p0, mm, kb int) {
	mr := ks.mr
	p = p[:mr*kb]
	if mm < mr && !(a.ColStride == 1 && ks.packA != nil) {
		clear(p)
	}
	switch {
	case a.ColStride == 1 && mm == mr && ks.packA != nil:
		ks.packA(p, a.Data[a.Off+i0*a.RowStride+p0:], a.RowStride, kb)
	case a.ColStride == 1 && ks.packA != nil:
		// the last rows: copied out (zero rows below) for the fast packer,
		// much quicker than gathering them element by element
		t := getBuf(mr * kb)
		for i := 0; i < mr; i++ {
			if i < mm {
				base := a.Off + (i0+i)*a.RowStride + p0
				copy(t.s[i*kb:(i+1)*kb], a.Data[base:base+kb])
			} else {
				clear(t.s[i*kb : (i+1)*kb])
			}
		}
		ks.packA(p, t.s, kb, kb)
		putBuf(t)
	case a.RowStride == 1 && mm == 14 && mr == 14 && hasPackAsm && a.ColStride > 0 && kb > 0:
		// A transposed, a full panel of the AVX-512 kernel: masked copies
		base := a.Off + i0 + p0*a.ColStride
		_ = a.Data[base+(kb-1)*a.ColStride+13]
		copyA14T(&p[0], &a.Data[base], a.ColStride, kb)
	case a.RowStride == 1 && mm == 6 && mr == 6 && hasPack16 && a.ColStride > 0 && kb > 0:
		// A transposed, a full panel of the AVX2 kernel: masked copies
		base := a.Off + i0 + p0*a.ColStride
		_ = a.Data[base+(kb-1)*a.ColStride+5]
		copyA6T(&p[0], &a.Data[base], a.ColStride, kb)
	case a.RowStride == 1: // A transposed: each k step is a run of rows
		for q := 0; q < kb; q++ {
			base := a.Off + i0 + (p0+q)*a.ColStride
			copy(p[q*mr:q*mr+mm], a.Data[base:base+mm])
		}
	default:
		for i := 0; i < mm; i++ {
			base := a.Off + (i0+i)*a.RowStride + p0*a.ColStride
			for q := 0; q < kb; q++ {
				p[q*mr+i] = a.Data[base+q*a.ColStride]
			}
		}
	}
}

// packAPanels4 packs four consecutive full micro-panels of a transposed A
// (rows i0 to i0+4·mr, from k step p0, kb deep) into p, panel after panel
// as packAPanel would, reading each k step's run of rows once for the
// four; it reports false where it does not apply (then packAPanel packs
// them one by one).
func packAPanels4(ks *kernelSet, p []float32, a Matrix, i0, p0, kb int) bool {
	if !hasPack16 || ks.mr != 6 || a.RowStride != 1 || a.ColStride <= 0 || kb <= 0 {
		return false
	}
	base := a.Off + i0 + p0*a.ColStride
	_ = a.Data[base+(kb-1)*a.ColStride+23]
	_ = p[4*6*kb-1]
	copyA6T4(&p[0], &a.Data[base], a.ColStride, kb)
	return true
}

// packBBlock packs rows [p0, p0+kb) × columns [j0, j0+nb) of B into
// micro-panels of nr columns, each stored k-major (nr values per step),
// zero padding the last panel.
func packBBlock(nr int, dst []float32, b Matrix, p0, j0, kb, nb int) {
	full := 0
	if b.ColStride == 1 {
		full = nb / nr * nr
		if hasPackAsm && nr == 32 && full > 0 && kb > 0 && b.RowStride > 0 {
			// the full panels in AVX-512 (the Go loop below spends a
			// memmove call per 32 floats)
			base := b.Off + p0*b.RowStride + j0
			_ = b.Data[base+(kb-1)*b.RowStride+full-1]
			_ = dst[full*kb-1]
			copyB32(&dst[0], &b.Data[base], b.RowStride, kb, full/nr)
		} else if hasPack16 && nr == 16 && full > 0 && kb > 0 && b.RowStride > 0 {
			// the same in AVX2, for the 6×16 kernel's panels
			base := b.Off + p0*b.RowStride + j0
			_ = b.Data[base+(kb-1)*b.RowStride+full-1]
			_ = dst[full*kb-1]
			copyB16(&dst[0], &b.Data[base], b.RowStride, kb, full/nr)
		} else {
			// row by row: one contiguous read stream, nb/nr write streams
			for q := 0; q < kb && full > 0; q++ {
				base := b.Off + (p0+q)*b.RowStride + j0
				src := b.Data[base : base+full]
				for jr := 0; jr < full; jr += nr {
					copy(dst[jr*kb+q*nr:jr*kb+q*nr+nr], src[jr:jr+nr])
				}
			}
		}
	}
	for jr := full; jr < nb; jr += nr {
		p := dst[jr*kb : jr*kb+nr*kb]
		nn := min(nr, nb-jr)
		if nn < nr && b.ColStride == 1 && hasPackAsm && nr == 32 && kb > 0 && b.RowStride > 0 {
			// a partial panel of contiguous rows (a pointwise convolution's
			// image of 16 or 49 pixels): masked copies, the rest zero
			base := b.Off + p0*b.RowStride + j0 + jr
			_ = b.Data[base+(kb-1)*b.RowStride+nn-1]
			copyB32Part(&p[0], &b.Data[base], b.RowStride, kb, uint32(1)<<nn-1)
			continue
		}
		if nn < nr && b.ColStride == 1 && hasPack16 && nr == 16 && kb > 0 && b.RowStride > 0 {
			base := b.Off + p0*b.RowStride + j0 + jr
			_ = b.Data[base+(kb-1)*b.RowStride+nn-1]
			_ = p[kb*nr-1]
			copyB16Part(&p[0], &b.Data[base], b.RowStride, kb, nn)
			continue
		}
		if nn < nr {
			clear(p)
		}
		if b.RowStride == 1 && nn == nr { // B transposed: each column is a run
			t := 0
			if hasPackAsm && nr == 32 && kb >= 16 && b.ColStride > 0 {
				// 16 k steps at a time, per half panel, in AVX-512
				t = kb / 16 * 16
				for h := 0; h < 32; h += 16 {
					base := b.Off + p0 + (j0+jr+h)*b.ColStride
					_ = b.Data[base+15*b.ColStride+t-1]
					_ = p[(t-1)*nr+h+15]
					transposeB16(&p[h], &b.Data[base], b.ColStride, t/16)
				}
			} else if hasPack16 && nr == 16 && kb >= 8 && b.ColStride > 0 {
				// 8 k steps at a time, per half panel, in AVX2
				t = kb / 8 * 8
				for h := 0; h < 16; h += 8 {
					base := b.Off + p0 + (j0+jr+h)*b.ColStride
					_ = b.Data[base+7*b.ColStride+t-1]
					_ = p[(t-1)*nr+h+7]
					transposeB8(&p[h], &b.Data[base], b.ColStride, t/8)
				}
			}
			for j := 0; j < nn && t < kb; j++ {
				base := b.Off + p0 + (j0+jr+j)*b.ColStride
				col := b.Data[base+t : base+kb]
				for q, v := range col {
					p[(t+q)*nr+j] = v
				}
			}
			continue
		}
		for q := 0; q < kb; q++ {
			row := p[q*nr : q*nr+nn]
			base := b.Off + (p0+q)*b.RowStride + (j0+jr)*b.ColStride
			for j := range row {
				row[j] = b.Data[base+j*b.ColStride]
			}
		}
	}
}
