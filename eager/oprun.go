package eager

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
)

// opRun is one queued run of an op's program: its inputs, the buffers of
// its new results, and the views its written arguments take. Small calls
// fit the inline arrays: one allocation per op.
type opRun struct {
	dev     *Device
	exe     backend.Executable
	ins     []input
	results []*Buffer
	targets []input
	lits    []*literal.Literal
	hdrs    []literal.Literal

	// bytes of each module result, and the memory of the device's pool
	// (bytePool) each is computed into, where it has one
	outNB []int64
	dests [][]byte

	insA   [4]input
	resA   [2]*Buffer
	tgtA   [2]input
	litsA  [4]*literal.Literal
	hdrsA  [4]literal.Literal
	outNBA [2]int64
	destsA [2][]byte
}

var opRuns = sync.Pool{New: func() any { return new(opRun) }}

func newOpRun(nin, nout int) *opRun {
	r := opRuns.Get().(*opRun)
	r.ins, r.lits, r.hdrs = r.insA[:0], r.litsA[:0], r.hdrsA[:0]
	if nin > len(r.insA) {
		r.ins, r.lits, r.hdrs = make([]input, 0, nin), make([]*literal.Literal, 0, nin), make([]literal.Literal, 0, nin)
	}
	r.ins, r.lits, r.hdrs = r.ins[:nin], r.lits[:nin], r.hdrs[:nin]
	r.results, r.targets, r.outNB, r.dests = r.resA[:0], r.tgtA[:0], r.outNBA[:0], r.destsA[:0]
	if nout > len(r.resA) {
		r.results, r.targets = make([]*Buffer, 0, nout), make([]input, 0, nout)
		r.outNB, r.dests = make([]int64, 0, nout), make([][]byte, 0, nout)
	}
	r.results, r.targets, r.outNB, r.dests = r.results[:nout], r.targets[:nout], r.outNB[:nout], r.dests[:nout]
	return r
}

// Run runs the program and stores its results (on the queue), then
// returns r to the pool.
func (r *opRun) Run() error {
	defer r.free()
	for k := range r.ins {
		r.lits[k] = r.ins[k].literalInto(&r.hdrs[k])
	}
	pool := &r.dev.pool
	ctx := context.Background()
	if pool.take(r.dests, r.outNB, poolMinBytes, r.dev.q) {
		ctx = backend.WithResultBuffers(ctx, r.dests)
	}
	start := time.Now()
	outs, err := r.exe.Run(ctx, r.lits)
	r.dev.runNanos.Add(int64(time.Since(start)))
	if err != nil {
		pool.giveBack(r.dests, nil)
		return err
	}
	if len(outs) != len(r.results) {
		return fmt.Errorf("the program returned %d results, want %d", len(outs), len(r.results))
	}
	var keptA [4][]byte
	kept := keptA[:0] // the bytes buffers keep, of the results stored
	for k, o := range outs {
		data := o.Data
		if overlapsAny(data, r.lits) || overlapsOut(data, outs[:k]) {
			data = append([]byte(nil), data...)
		}
		if b := r.results[k]; b != nil {
			kept = append(kept, b.store(pool, data, r.dests[k]))
			continue
		}
		t := &r.targets[k]
		if t.buf == nil {
			continue
		}
		if t.view.whole(t.nb) {
			kept = append(kept, t.buf.store(pool, data, r.dests[k]))
		} else {
			scatterView(t.buf.bytes(t.nb), data, &t.view)
		}
	}
	pool.giveBack(r.dests, kept)
	return nil
}

func (r *opRun) free() {
	*r = opRun{}
	opRuns.Put(r)
}
