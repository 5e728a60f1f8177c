package native

import (
	"math/rand"
	"testing"
	"unsafe"

	"github.com/torchtpu/torchtpu/literal"
)

func sameStart(a, b []byte) bool { return unsafe.SliceData(a) == unsafe.SliceData(b) }

// Smaller requests are carved out of a larger free buffer, side by side;
// released, they merge back, and the whole buffer serves a request of its
// size again.
func TestArenaCarvesSmallerBuffersFromLargerOnes(t *testing.T) {
	a := newArena()
	big := a.take(4 * minChunkBytes)
	a.put(big)

	var parts [][]byte
	for i := 0; i < 4; i++ {
		b := a.take(minChunkBytes)
		if len(b) != minChunkBytes || cap(b) != minChunkBytes {
			t.Fatalf("got len %d cap %d, want %d", len(b), cap(b), minChunkBytes)
		}
		parts = append(parts, b)
	}
	if a.stats.misses != 1 || len(a.chunks) != 1 {
		t.Fatalf("want the four requests carved from the first buffer: %+v, %d chunks", a.stats, len(a.chunks))
	}
	for i, p := range parts {
		for j := range parts[:i] {
			if spanOf(p).overlaps(spanOf(parts[j])) {
				t.Fatalf("pieces %d and %d overlap", j, i)
			}
		}
	}
	// Another request does not fit: a new buffer.
	extra := a.take(minChunkBytes)
	if a.stats.misses != 2 {
		t.Fatalf("a request with no room left did not allocate: %+v", a.stats)
	}
	for _, i := range []int{1, 3, 0, 2} { // out of order: every merge case
		a.put(parts[i])
	}
	a.put(extra)
	if c := a.chunks[0]; c.used != 0 || len(c.free) != 1 || c.free[0] != (seg{0, 4 * minChunkBytes}) {
		t.Fatalf("released pieces did not merge: %+v", c.free)
	}
	if b := a.take(4 * minChunkBytes); !sameStart(b, big) {
		t.Fatal("the merged buffer did not serve a request of its size")
	}
}

// The best fit is the smallest free segment large enough; small requests
// are recycled by exact size only.
func TestArenaTakesTheSmallestFit(t *testing.T) {
	a := newArena()
	for _, n := range []int{4 * minChunkBytes, 2 * minChunkBytes, 3 * minChunkBytes} {
		a.put(make([]byte, n))
	}
	b := a.take(minChunkBytes + 1)
	if p := a.pieces[unsafe.SliceData(b)]; len(p.c.b) != 2*minChunkBytes {
		t.Fatalf("took from a %d-byte buffer, want the %d-byte one", len(p.c.b), 2*minChunkBytes)
	}
	small := make([]byte, 100)
	a.put(small)
	if s := a.take(50); sameStart(s, small) {
		t.Error("a small request took a larger small buffer")
	}
	if s := a.take(100); !sameStart(s, small) {
		t.Error("a small request did not take the free buffer of its size")
	}
}

// endRun keeps the chunks the run used, drops the others and those with
// pieces still out (they left with the results).
func TestArenaEndRunKeepsUsedChunks(t *testing.T) {
	a := newArena()
	used, idle, out := a.take(minChunkBytes), make([]byte, minChunkBytes), a.take(2*minChunkBytes)
	a.put(used)
	a.put(idle)
	a.endRun()
	if len(a.chunks) != 1 || !sameStart(a.chunks[0].b, used) || len(a.pieces) != 0 {
		t.Fatalf("kept %d chunks, %d pieces; want the used one only", len(a.chunks), len(a.pieces))
	}
	_ = out
}

// Results carved from a shared chunk leave the run with copies of their
// own, views included, and every piece goes back to the chunk; a result
// that was a whole chunk keeps it, with the results viewing it.
func TestArenaKeepsChunksOfResults(t *testing.T) {
	a := newArena()
	a.put(make([]byte, 4*minChunkBytes))
	d1 := a.take(minChunkBytes)
	d1[0] = 7
	own := &literal.Literal{Data: d1}
	d2 := a.take(minChunkBytes) // a value that died, viewed by two results
	d2[8], d2[100] = 1, 2
	view1, view2 := &literal.Literal{Data: d2[8:16]}, &literal.Literal{Data: d2[100:]}
	whole := a.take(8 * minChunkBytes) // a chunk of its own
	wview := &literal.Literal{Data: whole[64:128]}
	wres := &literal.Literal{Data: whole}
	a.keepResults([]Value{own, Tuple{view1, view2}, own, wres, wview})
	for _, c := range []struct {
		l    *literal.Literal
		was  []byte
		b    byte
		name string
	}{{own, d1, 7, "result"}, {view1, d2[8:], 1, "first view"}, {view2, d2[100:], 2, "second view"}} {
		if sameStart(c.l.Data, c.was) || c.l.Data[0] != c.b {
			t.Errorf("the %s kept the chunk's bytes or lost its own", c.name)
		}
	}
	if !sameStart(wres.Data, whole) || !sameStart(wview.Data, whole[64:]) {
		t.Errorf("the results of a whole chunk were moved")
	}
	if len(a.chunks) != 1 || len(a.pieces) != 0 {
		t.Fatalf("want the shared chunk kept and the whole one let go: %d chunks, %d pieces", len(a.chunks), len(a.pieces))
	}
	if c := a.chunks[0]; c.used != 0 || len(c.free) != 1 || c.free[0] != (seg{0, 4 * minChunkBytes}) {
		t.Errorf("the shared chunk is not wholly free: used %d, free %+v", c.used, c.free)
	}
	a.endRun()
	if len(a.chunks) != 1 {
		t.Errorf("endRun dropped the shared chunk")
	}
}

// Random takes and puts over several runs: buffers out at once never
// overlap, every chunk's free segments stay sorted, apart and inside it,
// and a released run leaves every kept chunk wholly free.
func TestArenaRandomTakesAndPuts(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	a := newArena()
	for run := 0; run < 20; run++ {
		var out [][]byte
		for step := 0; step < 200; step++ {
			if len(out) > 0 && rng.Intn(2) == 0 {
				i := rng.Intn(len(out))
				a.put(out[i])
				out = append(out[:i], out[i+1:]...)
				continue
			}
			n := 1 + rng.Intn(8*minChunkBytes)
			b := a.take(n)
			if len(b) != n {
				t.Fatalf("take(%d) returned %d bytes", n, len(b))
			}
			for _, o := range out {
				if spanOf(b).overlaps(spanOf(o)) {
					t.Fatalf("run %d step %d: a %d-byte buffer overlaps one still out", run, step, n)
				}
			}
			out = append(out, b)
		}
		for _, c := range a.chunks {
			end := -1
			for _, s := range c.free {
				if s.n <= 0 || s.off <= end || s.off+s.n > len(c.b) {
					t.Fatalf("run %d: bad free list %+v of a %d-byte chunk", run, c.free, len(c.b))
				}
				end = s.off + s.n
			}
		}
		for _, o := range out {
			a.put(o)
		}
		a.endRun()
		for _, c := range a.chunks {
			if c.used != 0 || len(c.free) != 1 || c.free[0] != (seg{0, len(c.b)}) {
				t.Fatalf("run %d: a kept chunk is not wholly free: %+v", run, c.free)
			}
		}
	}
}
