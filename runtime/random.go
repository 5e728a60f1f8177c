package runtime

import (
	"sync/atomic"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// The generator behind random ops (rand, randn, randperm, ...): like
// PyTorch's default CPU generator it is one per process, starts from a
// fixed seed and advances on every draw, so two runs of a program draw
// different values and a process replays the same sequence. Each draw hands
// a random op a fresh THREE_FRY state (key = seed, counter = draw number
// shifted clear of the counters the op itself uses).

var (
	rngSeed  atomic.Uint64
	rngDraws atomic.Uint64
)

func init() { rngSeed.Store(67280421310721) } // PyTorch's default seed

// ManualSeed resets the generator, as torch.manual_seed does.
func ManualSeed(seed uint64) {
	rngSeed.Store(seed)
	rngDraws.Store(0)
}

// nextRNGState returns the ui64[2] state of the next draw.
func nextRNGState() *literal.Literal {
	l, _ := literal.New(dtype.U64, []int64{2})
	l.SetInt64(0, int64(rngSeed.Load()))
	l.SetInt64(1, int64(rngDraws.Add(1)<<40))
	return l
}
