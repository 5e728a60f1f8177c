package capi

// fusion records the ops of fused mode (see Fused).
type fusion struct{}

// flushLocked runs the recorded block of fused mode, if any. d.mu is held.
func (d *Device) flushLocked() error { return nil }
