package native

// Which values of a planned run may share bytes with another value.
// release recycles a dead value's buffer only when no live value overlaps
// it, which takes a scan of the live values; most values own their buffer,
// and for those the scan can be skipped. A kernel sees only its operands,
// so a result can share bytes only with them (a reshape or slice view, a
// result that is an operand): comparing each result with its operands
// when it is defined finds every value that may share, and only those
// are scanned. Ops with regions can return values their regions read
// from the enclosing block, which are not operands: after one runs,
// every value is scanned. Arguments and constants are checked apart
// (persist spans).

type aliases struct {
	shared []bool // by slot: may overlap another value
	// list holds the slots marked, in order: the only ones a scan for a
	// value sharing bytes need visit (gpt2_tiny's run has ~200 live
	// slots, weights and constants mostly, and ~40 marked ones)
	list []int
	all  bool // an op with regions ran: scan every value
}

func newAliases(slots int) *aliases {
	return &aliases{shared: make([]bool, slots)}
}

// aliases returns the frame's alias record, cleared, for slots slots.
func (fr *frame) aliases(slots int) *aliases {
	a := &fr.al
	if cap(a.shared) >= slots {
		a.shared = a.shared[:slots]
		clear(a.shared)
	} else {
		a.shared = make([]bool, slots)
	}
	a.list = a.list[:0]
	a.all = false
	return a
}

func (a *aliases) maybeShared(s int) bool {
	return a == nil || a.all || s < 0 || s >= len(a.shared) || a.shared[s]
}

func (a *aliases) mark(s int) {
	if a != nil && s >= 0 && s < len(a.shared) && !a.shared[s] {
		a.shared[s] = true
		a.list = append(a.list, s)
	}
}

// defined records the results of an unfused op: each result overlapping
// an operand or another result marks both.
func (a *aliases) defined(fr *frame, pl *opPlan) {
	if a == nil || a.all {
		return
	}
	if len(pl.op.Regions) != 0 {
		a.all = true
		return
	}
	var ibuf, obuf [4]span
	for j, o := range pl.out {
		outs := valueSpans(obuf[:0], fr.slots[o])
		if len(outs) == 0 {
			continue
		}
		for _, s := range pl.in {
			if anyOverlap(outs, valueSpans(ibuf[:0], fr.slots[s])) {
				a.mark(o)
				a.mark(s)
			}
		}
		for _, o2 := range pl.out[j+1:] {
			if anyOverlap(outs, valueSpans(ibuf[:0], fr.slots[o2])) {
				a.mark(o)
				a.mark(o2)
			}
		}
		for k := 1; k < len(outs); k++ {
			if overlapsAny(outs[k], outs[:k]) {
				a.mark(o) // a tuple holding one buffer twice
			}
		}
	}
}

func anyOverlap(a, b []span) bool {
	for _, s := range a {
		if overlapsAny(s, b) {
			return true
		}
	}
	return false
}
