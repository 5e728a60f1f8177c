package eager

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	_ "github.com/torchtpu/torchtpu/backend/native" // the "cpu" backend the tests run on
	"github.com/torchtpu/torchtpu/literal"
)

// The tests name buffers by handles of testHost, a table like the C
// ABI's (package capi, whose own tests check that the device's words
// resolve through its table).

// Handle is a buffer handle in tests.
type Handle = uint64

type table struct {
	sync.Mutex
	next uint64
	bufs map[uint64]*Buffer
}

var testHost = &table{bufs: map[uint64]*Buffer{}}

func (t *table) Handle(b *Buffer) uint64 {
	t.Lock()
	defer t.Unlock()
	t.next++
	t.bufs[t.next] = b
	return t.next
}

func (t *table) Buffer(h uint64) (*Buffer, error) {
	t.Lock()
	defer t.Unlock()
	if b, ok := t.bufs[h]; ok {
		return b, nil
	}
	if h != 0 && h <= t.next {
		return nil, fmt.Errorf("buffer handle %d was already freed", h)
	}
	return nil, fmt.Errorf("buffer handle %d does not exist", h)
}

func (t *table) CopyTensor(unsafe.Pointer, int64, int32, []int64, []int64) (*literal.Literal, error) {
	return nil, errors.New("the test host has no CPU tensors")
}

func (t *table) Live() map[string]int {
	t.Lock()
	defer t.Unlock()
	return map[string]int{"buffer": len(t.bufs)}
}

// Free frees handle h and releases its buffer.
func Free(h Handle) error {
	testHost.Lock()
	b, ok := testHost.bufs[h]
	delete(testHost.bufs, h)
	testHost.Unlock()
	if !ok {
		return fmt.Errorf("free: buffer handle %d does not exist", h)
	}
	b.Release()
	return nil
}

func newDevice(opts Options) (*Device, error) { return New(opts, testHost) }
