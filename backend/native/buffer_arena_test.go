package native

import (
	"testing"
	"unsafe"

	"github.com/torchtpu/torchtpu/literal"
)

// A larger free buffer serves a smaller request (within fitRatio) and
// comes back whole when the value dies; small requests and requests far
// below the free buffer's size allocate their own.
func TestArenaFitsSmallerRequests(t *testing.T) {
	a := newArena()
	big := a.take(4 * minFitBytes)
	a.put(big)

	b := a.take(minFitBytes)
	if len(b) != minFitBytes || cap(b) != minFitBytes {
		t.Fatalf("got len %d cap %d, want %d", len(b), cap(b), minFitBytes)
	}
	if unsafe.SliceData(b) != unsafe.SliceData(big) || a.stats.fits != 1 {
		t.Fatalf("the request did not take the free 4x buffer: %+v", a.stats)
	}
	a.put(b)
	if l := a.free[4*minFitBytes]; len(l) != 1 || len(l[0]) != 4*minFitBytes {
		t.Fatalf("the whole buffer did not come back: free %v", a.free)
	}

	// Too small a request, or a buffer over fitRatio times the request:
	// a new buffer.
	if s := a.take(minFitBytes - 1); unsafe.SliceData(s) == unsafe.SliceData(big) {
		t.Error("a request under minFitBytes took a larger buffer")
	}
	if s := a.take(minFitBytes + 1); unsafe.SliceData(s) != unsafe.SliceData(big) {
		t.Error("a request within fitRatio did not take the larger buffer")
	}
	a.endRun()
	if len(a.whole) != 0 {
		t.Errorf("endRun kept %d shortened buffers", len(a.whole))
	}
}

// The best fit is the smallest free buffer large enough.
func TestArenaTakesTheSmallestFit(t *testing.T) {
	a := newArena()
	for _, n := range []int{4 * minFitBytes, 2 * minFitBytes, 3 * minFitBytes} {
		a.put(make([]byte, n))
	}
	b := a.take(minFitBytes + 1)
	if w := a.whole[unsafe.SliceData(b)]; len(w.b) != 2*minFitBytes {
		t.Fatalf("took a %d-byte buffer, want the %d-byte one", len(w.b), 2*minFitBytes)
	}
}

// A result handed out shortened leaves the run with a copy of its own
// size; its whole buffer stays in the arena for the next run. A result
// whose bytes another result views keeps its buffer.
func TestArenaKeepsWholeBuffersOfResults(t *testing.T) {
	a := newArena()
	a.put(make([]byte, 2*minFitBytes))
	a.put(make([]byte, 2*minFitBytes))
	d1 := a.take(minFitBytes)
	d1[0] = 7
	own := &literal.Literal{Data: d1}
	d2 := a.take(minFitBytes)
	shared := &literal.Literal{Data: d2}
	view := &literal.Literal{Data: d2[8:16]}
	a.keepResults([]Value{own, shared, view})
	if unsafe.SliceData(own.Data) == unsafe.SliceData(d1) || len(own.Data) != minFitBytes || own.Data[0] != 7 {
		t.Errorf("the result kept the arena's buffer or lost its bytes")
	}
	if unsafe.SliceData(shared.Data) != unsafe.SliceData(d2) {
		t.Errorf("a result viewed by another result was moved")
	}
	if l := a.free[2*minFitBytes]; len(l) != 1 || unsafe.SliceData(l[0]) != unsafe.SliceData(d1) {
		t.Errorf("want the first result's whole buffer back in the arena, free has %d", len(l))
	}
}
