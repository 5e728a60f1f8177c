package eager

import (
	"context"
	"fmt"
	"unsafe"
)

// Buffer is one storage of the eager device: bytes owned by the engine on
// behalf of a PyTorch storage, addressed by a handle. Like PyTorch's
// storages it is untyped; tensors are Views of it.
//
// The size is the dispatcher's (it changes when the caller resizes the
// storage); the bytes belong to the device's queue: only queued tasks, or
// a caller that has waited for the queue, touch them. nil bytes read as
// zeros (an allocation nothing has written yet).
//
// On the native backend the bytes are host memory. A device backend will
// keep a backend buffer here instead; reads and writes go through the
// methods below, so that change stays in this file.
type Buffer struct {
	dev    *Device
	nbytes int64  // dispatcher side, under dev.mu
	data   []byte // queue side
	freed  bool   // dispatcher side
	// the buffer's slot in fused block fgen (fusion.slotOf), under dev.mu
	fslot int32
	fgen  uint64
	// pooled: data is memory of the device's pool (bytePool), queue side
	pooled bool
	// useq is the number of the last queued task that reads or writes
	// the buffer (0: none), under dev.mu: a read waits for that task only
	useq uint64
}

// touched notes that the task queued last reads or writes bufs (nil ones
// are skipped). d.mu is held.
func (d *Device) touched(bufs ...*Buffer) {
	seq := d.q.last()
	for _, b := range bufs {
		if b != nil {
			b.useq = seq
		}
	}
}

// Release frees the buffer on behalf of its handle (the caller's table
// calls it when the handle is freed): its bytes stop counting at once and
// go when the last queued task using them is done.
func (b *Buffer) Release() {
	if b.dev != nil {
		b.dev.released(b)
	}
}

// bytes returns the buffer's bytes for a task, materialising zeros.
func (b *Buffer) bytes(nbytes int64) []byte {
	if int64(len(b.data)) < nbytes {
		d := make([]byte, nbytes)
		copy(d, b.data)
		b.data = d
		b.pooled = false
	}
	return b.data
}

// NewBuffer allocates a buffer of nbytes on the device and returns its
// handle (from the device's Host).
func (d *Device) NewBuffer(nbytes int64) (uint64, error) {
	if nbytes < 0 {
		return 0, fmt.Errorf("negative buffer size %d", nbytes)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.host.Handle(d.alloc(nbytes)), nil
}

// alloc makes a buffer and counts its bytes. d.mu is held.
func (d *Device) alloc(nbytes int64) *Buffer {
	b := &Buffer{dev: d, nbytes: nbytes}
	d.allocated += nbytes
	if d.allocated > d.peak {
		d.peak = d.allocated
	}
	d.stats.Buffers++
	return b
}

// released uncounts a freed buffer.
func (d *Device) released(b *Buffer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b.freed {
		return
	}
	b.freed = true
	d.allocated -= b.nbytes
	// The bytes go when the last queued task using the buffer is done:
	// back to the pool, where they are its memory, unless a recorded
	// block still holds the buffer (its run reads them; they are left
	// to the collector).
	if d.fuse != nil {
		if _, ok := d.fuse.slotIn(b); ok {
			return
		}
	}
	if b.useq == 0 {
		return // no task ever touched it: it has no bytes
	}
	d.pool.release(b, b.useq)
	d.pool.reclaim(d.q.finished())
}

// ResizeBuffer grows or shrinks buffer h to nbytes, keeping the bytes the
// two sizes share (PyTorch's resize_ of a storage).
func (d *Device) ResizeBuffer(h uint64, nbytes int64) error {
	if nbytes < 0 {
		return fmt.Errorf("negative buffer size %d", nbytes)
	}
	b, err := d.host.Buffer(h)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.flushIfTouched(b, "resize"); err != nil {
		return err
	}
	d.allocated += nbytes - b.nbytes
	if d.allocated > d.peak {
		d.peak = d.allocated
	}
	b.nbytes = nbytes
	defer d.touched(b)
	return d.enqueue("resize storage", func() error {
		if int64(len(b.data)) > nbytes {
			b.data = append([]byte(nil), b.data[:nbytes]...)
			b.pooled = false
		}
		return nil
	})
}

// readAfter flushes the recorded block (fused mode) and returns the number
// of the last queued task a read of b must wait for: the last that reads
// or writes b (the block, when it holds b). Later tasks touch other
// buffers only, and run on while the read copies b. d.mu is held.
func (d *Device) readAfter(b *Buffer) (uint64, error) {
	if err := d.flush("read"); err != nil {
		return 0, err
	}
	return b.useq, nil
}

// Write copies n bytes at src (contiguous elements of v's dtype, row-major)
// into view v of buffer h. The bytes are copied before Write returns; the
// store into the buffer is queued.
func (d *Device) Write(h uint64, v View, src unsafe.Pointer, n int64) error {
	b, err := d.host.Buffer(h)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	count, err := v.check(b.nbytes)
	if err != nil {
		return fmt.Errorf("write to buffer %d: %w", h, err)
	}
	if want := count * int64(v.DType.Size()); n != want {
		return fmt.Errorf("write to buffer %d: %d bytes given for %d elements of %v (%d bytes)", h, n, count, v.DType, want)
	}
	if n > 0 && src == nil {
		return fmt.Errorf("write to buffer %d: null source pointer", h)
	}
	if err := d.flushIfTouched(b, "write"); err != nil {
		return err
	}
	data := append([]byte(nil), unsafe.Slice((*byte)(src), n)...)
	nb := b.nbytes
	d.stats.Uploads++
	d.stats.UploadBytes += n
	defer d.touched(b)
	return d.enqueue("write to tpu", func() error {
		if v.whole(nb) {
			b.data = data
			b.pooled = false
			return nil
		}
		scatterView(b.bytes(nb), data, &v)
		return nil
	})
}

// Read copies view v of buffer h into dst (n bytes, contiguous row-major
// elements of v's dtype), after the queued work before it is done. An
// error of that work is returned here (the read is a synchronisation).
//
// In fused mode the recorded block is flushed at a read whatever it holds,
// so that blocks end at the same places in every step of a loop (a
// replayed block is one that repeats the one before it call for call).
// When the block does not touch the buffer, the read does not wait for
// it: the block runs on the device's worker while the bytes are copied,
// as a training step's loss.item() then waits for the forward's blocks
// and not for the optimizer's.
func (d *Device) Read(ctx context.Context, h uint64, v View, dst unsafe.Pointer, n int64) error {
	b, err := d.host.Buffer(h)
	if err != nil {
		return err
	}
	d.mu.Lock()
	// d.mu is held until the bytes are copied: no task touching b can be
	// queued meanwhile (tasks never take d.mu, so waiting under it is safe).
	defer d.mu.Unlock()
	count, err := v.check(b.nbytes)
	nb := b.nbytes
	if err == nil {
		if want := count * int64(v.DType.Size()); n != want {
			err = fmt.Errorf("%d bytes of room for %d elements of %v (%d bytes)", n, count, v.DType, want)
		}
	}
	if err == nil && n > 0 && dst == nil {
		err = fmt.Errorf("null destination pointer")
	}
	var seq uint64 // the last task the read waits for
	if err == nil {
		seq, err = d.readAfter(b)
	}
	d.stats.Downloads++
	d.stats.DownloadBytes += n
	if err != nil {
		return fmt.Errorf("read from buffer %d: %w", h, err)
	}
	if err := d.q.wait(ctx, seq); err != nil {
		return err
	}
	if n > 0 {
		gatherView(unsafe.Slice((*byte)(dst), n), b.bytes(nb), &v)
	}
	return d.q.failure()
}
