package eager

import "slices"

// Replay of fused blocks. A training loop records the same ops every
// step: the same signatures on buffers that differ only by which tensors
// they are. Once a block has compiled, the next block after the same
// predecessor is expected to repeat it call for call, and each call is
// checked against the one recorded then (its "tape"), like a CUDA graph
// or a lazy tensor's graph cache, but checked rather than assumed:
//
//   - a call whose op and argument words equal the recorded call's, but
//     for the words that are values (tensor handles, scalars' values, CPU
//     tensors' pointers: decoder.vals), has the recorded call's plan: it
//     is decoded without a signature key and the plan is not looked up;
//   - its buffers must fall on the recorded slots (the block's structure
//     connects them the same way); its part of the block's key, which
//     equal words and slots make equal to the recorded one, is not
//     written;
//   - at the flush, a block that matched every recorded call and has the
//     same result slots is the recorded block: its key is not built nor
//     looked up.
//
// The first call that departs (another op, other words or slots, an
// early flush) ends the replay: the key written so far is the recorded
// key up to that call, and recording goes on as without replay. A replay
// therefore always ends with the block, key and results that recording
// alone gives.

// callWords is the call Call is recording (for the tape: record copies it
// into the block's call).
type callWords struct {
	op    int32
	words []int64
	vals  []int32
	// matched: the words are the expected call's (fusion.expect)
	matched bool
}

// expect returns the recorded call the block's next call repeats, if the
// block is replaying one and op and words match it.
func (f *fusion) expect(op int32, words []int64) *fusedCall {
	if f.rp == nil || f.cur >= len(f.rp.tape) {
		return nil
	}
	if c := &f.rp.tape[f.cur]; sameWords(c, op, words) {
		return c
	}
	return nil
}

// sameWords reports whether op and words are recorded call c's but for
// the words that are values.
func sameWords(c *fusedCall, op int32, words []int64) bool {
	if c.op != op || len(c.words) != len(words) {
		return false
	}
	start := 0
	for _, v := range c.vals {
		if !slices.Equal(c.words[start:v], words[start:v]) {
			return false
		}
		start = int(v) + 1
	}
	return slices.Equal(c.words[start:], words[start:])
}

// depart ends the replay: the key becomes the recorded block's key up to
// the calls matched so far.
func (f *fusion) depart() {
	if f.rp == nil {
		return
	}
	end := 0
	if f.cur > 0 {
		end = f.rp.tape[f.cur-1].keyEnd
	}
	f.key = append(f.key[:0], f.rp.key[:end]...)
	f.rp = nil
}

// replayed reports whether c, just recorded from call, repeats the next
// recorded call (same words, plan, slots and module inputs): then its key
// part is the recorded one and the replay goes on. Otherwise the replay
// ends here.
func (f *fusion) replayed(c *fusedCall, call *callWords) bool {
	if f.rp == nil {
		return false
	}
	if f.cur < len(f.rp.tape) {
		t := &f.rp.tape[f.cur]
		ok := t.p == c.p && len(t.ins) == len(c.ins) && len(t.outs) == len(c.outs)
		if ok && !call.matched {
			ok = sameWords(t, call.op, call.words)
		}
		for k := 0; ok && k < len(c.ins); k++ {
			ok = t.ins[k].slot == c.ins[k].slot && t.ins[k].input == c.ins[k].input
		}
		for k := 0; ok && k < len(c.outs); k++ {
			ok = t.outs[k].slot == c.outs[k].slot && t.outs[k].whole == c.outs[k].whole && t.outs[k].fresh == c.outs[k].fresh
		}
		if ok {
			// the same arguments and results: the recorded call's
			c.ins, c.outs, c.keyEnd = t.ins, t.outs, t.keyEnd
			f.cur++
			return true
		}
	}
	f.depart()
	return false
}

// replayedBlock returns the recorded block when the block repeated all of
// its calls and has its result slots; otherwise it ends the replay (the
// key then holds the calls' part) and returns nil.
func (f *fusion) replayedBlock(results []int) *fusedBlock {
	if rp := f.rp; rp != nil && f.cur == len(rp.tape) && slices.Equal(results, rp.results) {
		return rp
	}
	f.depart()
	return nil
}

// expectAfter notes that blk ran after the previous block, and sets the
// new block to replay the one that followed blk the last time. d.mu is
// held.
func (d *Device) expectAfter(blk *fusedBlock) {
	if d.follow == nil {
		d.follow = map[*fusedBlock]*fusedBlock{}
	}
	d.follow[d.prevBlock] = blk
	d.prevBlock = blk
	f := d.fuse
	if f.rp = d.follow[blk]; f.rp != nil {
		// room for all of it at once
		f.calls = make([]fusedCall, 0, len(f.rp.tape))
		f.slots = make([]fslot, 0, f.rp.slots)
		f.inputs = make([]finput, 0, f.rp.inputs)
	}
}
