package capi

import (
	"context"
	"os"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/torchtpu/torchtpu/eager"
	"github.com/torchtpu/torchtpu/literal"
)

// The eager tpu device is package eager; the C ABI's part is its skin:
// the process's one device, whose buffers are named by this package's
// handles and whose CPU tensor arguments are read as TensorDescs.

// The device's views and the ABI's tensors share one rank limit
// (TT_MAX_RANK): this fails to compile when the two differ.
const _ = uint(MaxRank-eager.MaxRank) + uint(eager.MaxRank-MaxRank)

// host is the eager device's Host: the handle table and TensorDesc.
type host struct{}

func (host) Handle(b *eager.Buffer) uint64 { return uint64(put(b)) }

func (host) Buffer(h uint64) (*eager.Buffer, error) { return get[*eager.Buffer](Handle(h), "buffer") }

func (host) CopyTensor(data unsafe.Pointer, extent int64, dtype int32, shape, strides []int64) (*literal.Literal, error) {
	d := TensorDesc{Data: data, Extent: extent, DType: dtype, Shape: shape, Strides: strides}
	return d.Copy()
}

func (host) Live() map[string]int { return Live() }

var theDevice struct {
	sync.Mutex
	d *eager.Device
}

// EagerDevice returns the process's eager device, opening it with the
// default options ($TORCHTPU_DEVICE, $TORCHTPU_MODE) on first use.
func EagerDevice() (*eager.Device, error) {
	theDevice.Lock()
	defer theDevice.Unlock()
	if theDevice.d != nil {
		return theDevice.d, nil
	}
	opts := eager.Options{Backend: os.Getenv("TORCHTPU_DEVICE"), Mode: os.Getenv("TORCHTPU_MODE")}
	d, err := eager.New(opts, host{})
	if err != nil {
		return nil, err
	}
	theDevice.d = d
	return d, nil
}

// EmptyCache finishes the device's queued work and returns the memory of
// freed buffers to the system (torch.tpu.empty_cache).
func EmptyCache(ctx context.Context, d *eager.Device) error {
	if err := d.Drain(ctx, "empty_cache"); err != nil {
		return err
	}
	debug.FreeOSMemory()
	return nil
}
