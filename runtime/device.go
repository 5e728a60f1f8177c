package runtime

import (
	"context"
	"fmt"
	"slices"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
)

// Values on the device. A run keeps every value its segments compute on
// the program's device, as backend.Buffers: the next segment reads them
// there, and only a host fallback's arguments and the user outputs are
// read back. Inside the run, a value computed on the device is still a
// *literal.Literal for the lowering (its identity, dtype and shape: a
// shell without data) whose buffer deviceIO holds; its data arrive when
// something on the host needs them (deviceIO.host). On the native
// backend buffers are host memory (backend.HostBuffer): results are the
// literals themselves, and nothing is copied.

// deviceIO links one call's host literals and device buffers, counts the
// bytes moved each way, and releases the call's buffers when it ends.
type deviceIO struct {
	p       *Program
	ctx     context.Context
	dev     map[*literal.Literal]backend.Buffer // the device copy of a literal
	pending map[*literal.Literal]bool           // shells: the data is on the device only
	owned   []backend.Buffer                    // made by the call: released at its end unless kept
	kept    map[backend.Buffer]bool
	// weightOf names the weight a literal is (lowering path).
	weightOf map[*literal.Literal]string
	h2d, d2h int64
}

func newDeviceIO(ctx context.Context, p *Program) *deviceIO {
	return &deviceIO{p: p, ctx: ctx}
}

// setDev records buf as l's device copy, and l as a shell whose data are
// on the device only when pending. The maps are made on first use: a
// call on the native backend needs none.
func (io *deviceIO) setDev(l *literal.Literal, buf backend.Buffer, pending bool) {
	if io.dev == nil {
		io.dev = map[*literal.Literal]backend.Buffer{}
	}
	io.dev[l] = buf
	if pending {
		if io.pending == nil {
			io.pending = map[*literal.Literal]bool{}
		}
		io.pending[l] = true
	}
}

// keep marks buf as handed to the caller: the call's end does not release it.
func (io *deviceIO) keep(buf backend.Buffer) {
	if io.kept == nil {
		io.kept = map[backend.Buffer]bool{}
	}
	io.kept[buf] = true
}

// upload puts l on the device, counting the bytes when they move.
func (io *deviceIO) upload(l *literal.Literal) (backend.Buffer, error) {
	buf, err := backend.Upload(io.ctx, io.p.Backend, l)
	if err != nil {
		return nil, err
	}
	if !backend.IsHost(buf) {
		io.h2d += int64(len(l.Data))
	}
	return buf, nil
}

// download reads buf on the host, counting the bytes when they move.
func (io *deviceIO) download(buf backend.Buffer) (*literal.Literal, error) {
	l, err := buf.ToHost(io.ctx)
	if err != nil {
		return nil, err
	}
	if !hostMemory(buf) {
		io.d2h += int64(len(l.Data))
	}
	return l, nil
}

// buffer returns l on the device: its device copy, a resident weight, or
// a new upload (released when the call ends).
func (io *deviceIO) buffer(l *literal.Literal) (backend.Buffer, error) {
	if b, ok := io.dev[l]; ok {
		return b, nil
	}
	if fqn, ok := io.weightOf[l]; ok && io.p.Weights[fqn] == l {
		return io.p.weightBuffer(io, fqn)
	}
	b, err := io.upload(l)
	if err != nil {
		return nil, err
	}
	io.setDev(l, b, false)
	io.owned = append(io.owned, b)
	return b, nil
}

// adopt takes a result buffer of the call and returns the literal that
// stands for it: on a host backend the buffer's literal itself, else a
// shell whose data stay on the device until host() needs them.
func (io *deviceIO) adopt(buf backend.Buffer) (*literal.Literal, error) {
	if hb, ok := buf.(*backend.HostBuffer); ok {
		if l := hb.Literal(); l != nil {
			return l, nil
		}
		return nil, fmt.Errorf("result buffer on %s: %w", buf.Device(), backend.ErrReleased)
	}
	shell := &literal.Literal{DType: buf.DType(), Shape: buf.Shape()}
	io.setDev(shell, buf, true)
	io.owned = append(io.owned, buf)
	return shell, nil
}

// input registers a user input already on the device: shell stands for
// it; the caller keeps the buffer.
func (io *deviceIO) input(buf backend.Buffer) *literal.Literal {
	if hb, ok := buf.(*backend.HostBuffer); ok {
		if l := hb.Literal(); l != nil {
			return l
		}
	}
	shell := &literal.Literal{DType: buf.DType(), Shape: buf.Shape()}
	io.setDev(shell, buf, true)
	return shell
}

// host fills l's data when they are on the device only.
func (io *deviceIO) host(l *literal.Literal) error {
	if l == nil || !io.pending[l] {
		return nil
	}
	got, err := io.download(io.dev[l])
	if err != nil {
		return err
	}
	if got.DType != l.DType || !slices.Equal(got.Shape, l.Shape) {
		return fmt.Errorf("device value is %v, want %s%v", got, l.DType, l.Shape)
	}
	l.Data = got.Data
	delete(io.pending, l)
	return nil
}

// output returns a user output as a buffer the caller owns: the device
// buffer of a computed value, a copy when the buffer is a user input or a
// weight (the caller must be free to release what it gets), or an upload.
func (io *deviceIO) output(l *literal.Literal) (backend.Buffer, error) {
	if l == nil {
		return nil, nil
	}
	if b, ok := io.dev[l]; ok && slices.Contains(io.owned, b) && !io.kept[b] {
		io.keep(b)
		return b, nil
	}
	if b, ok := io.dev[l]; ok {
		if hb, isHost := b.(*backend.HostBuffer); isHost {
			return backend.NewHostBuffer(hb.Device(), hb.Literal()), nil
		}
		if err := io.host(l); err != nil {
			return nil, err
		}
	}
	return io.upload(l)
}

// close releases the call's buffers that nobody kept.
func (io *deviceIO) close() {
	for _, b := range io.owned {
		if !io.kept[b] {
			b.Release()
		}
	}
	io.owned = nil
}

// await waits for every buffer the call made, so that a failed execution
// is reported by the call that ran it.
func (io *deviceIO) await() error {
	for _, b := range io.owned {
		if err := b.Await(io.ctx); err != nil {
			return err
		}
	}
	return nil
}

// hostMemory reports whether reading buf moves no bytes.
func hostMemory(buf backend.Buffer) bool {
	if _, ok := buf.(*futureBuffer); ok {
		return true
	}
	return backend.IsHost(buf)
}
