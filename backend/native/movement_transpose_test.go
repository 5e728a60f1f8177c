package native

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/torchtpu/torchtpu/literal"
)

// TestTransposeBlocks checks float32 and float64 transposes (the 8×8
// vector blocks, their edges, a batch dim, a source with padded rows)
// element by element against index arithmetic.
func TestTransposeBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, esz := range []int{4, 8} {
		for _, c := range []struct{ b, rows, cols, pad int64 }{
			{1, 8, 8, 0}, {1, 16, 24, 0}, {1, 13, 21, 0}, {1, 9, 300, 3}, {3, 40, 17, 1}, {2, 1024, 8, 0}, {1, 7, 64, 0},
		} {
			t.Run(fmt.Sprintf("esz=%d/%+v", esz, c), func(t *testing.T) {
				ld := c.cols + c.pad // source row length
				src := make([]byte, int(c.b*c.rows*ld)*esz)
				for i := range src {
					src[i] = byte(r.IntN(256))
				}
				dst := make([]byte, int(c.b*c.rows*c.cols)*esz)
				// dst[b][j][i] = src[b][i][j]: shape [b, cols, rows]
				shape := []int64{c.b, c.cols, c.rows}
				copyBox(esz, shape, dst, 0, literal.Strides(shape), src, 0, []int64{c.rows * ld, 1, ld})
				get := func(buf []byte, off int64) uint64 {
					if esz == 4 {
						return uint64(binary.LittleEndian.Uint32(buf[off*4:]))
					}
					return binary.LittleEndian.Uint64(buf[off*8:])
				}
				for b := int64(0); b < c.b; b++ {
					for j := int64(0); j < c.cols; j++ {
						for i := int64(0); i < c.rows; i++ {
							got, want := get(dst, (b*c.cols+j)*c.rows+i), get(src, (b*c.rows+i)*ld+j)
							if got != want {
								t.Fatalf("element [%d %d %d] = %#x, want %#x", b, j, i, got, want)
							}
						}
					}
				}
			})
		}
	}
}
