package native

import (
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/torchtpu/torchtpu/backend/native/gemm"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Prepacked weights. A linear layer's weight reaches dot_general as an
// argument of the program (or a constant), the same literal run after
// run, and the GEMM packs its B operand into micro-panels on every call:
// for the few rows of a token-level model that packing (a transposition
// of W, read from memory) cost as much as the product. The first run
// packs the weight once (gemm.PackB) and keeps it per op; later runs
// multiply against the packed copy while the operand is the same literal
// with the same bytes. Only a frozen literal (literal.Literal.Frozen: a
// weight loaded from an archive, a constant) is packed ahead: its bytes
// never change, so the identity of the literal and of its bytes stands
// for its contents. The eager device's buffers and memory a caller lends
// through the C ABI are written in place between runs and never packed
// ahead; an op that misses again and again stops packing ahead (its
// operand is not a weight after all).

// prepackEnabled switches prepacking (TORCHTPU_NATIVE_PREPACK=0 turns it off;
// tests compare both).
var prepackEnabled = os.Getenv("TORCHTPU_NATIVE_PREPACK") != "0"

// prepackMaxMisses is the misses in a row after which an op stops
// prepacking its B operand.
const prepackMaxMisses = 3

// prepackMaxRows bounds the rows of A from which a product packs B per
// call instead: there the packing is a small share of the product (6% at
// 128 rows, less beyond), not worth a second copy of the weight.
const prepackMaxRows = 256

// prepackBudget bounds the bytes of all packed copies held at once
// (TORCHTPU_NATIVE_PREPACK_MB, default 1024): each is a second copy of a
// weight, so a model's weights take twice their memory while they are
// prepacked.
var prepackBudget = envInt("TORCHTPU_NATIVE_PREPACK_MB", 1024) << 20

// prepackBytes is the bytes the live packed copies hold.
var prepackBytes atomic.Int64

type packedOperand struct {
	src    weak.Pointer[literal.Literal]
	data   unsafe.Pointer // src.Data's first byte when packed
	n      int            // len(src.Data)
	key    [3]int         // the dims it was packed for
	v      any            // the packed operand
	misses atomic.Int32   // misses in a row up to this entry (a hit resets it)
	off    bool           // the op gave up prepacking
}

var packedWeights opCache[*packedOperand]

// prepackStats counts hits and packs (tests and the profile read them).
var prepackStats struct{ hits, packs atomic.Int64 }

// isWeightOperand reports whether operand i of op, run in env, is an
// argument of the entry function or a constant: the values that can be
// the same literal run after run. A value of any other function or of a
// region (a callee's argument, a loop's carried value) can be a literal
// the run reuses with new contents (the memory plan's headers), so only
// the entry function's own arguments count.
func isWeightOperand(env Env, op *stablehlo.Op, i int) bool {
	if i >= len(op.Operands) {
		return false
	}
	fr, ok := env.(*frame)
	if !ok || fr.proc.depth != 1 {
		return false
	}
	v := op.Operands[i]
	if v.Def != nil {
		return v.Def.Name == "stablehlo.constant"
	}
	return fr.fn.isArg(v)
}

// prepacked returns what build packs from literal l, operand i of op (a
// weight operand: isWeightOperand), for
// the dims key: built when l is not the literal packed last (or key
// changed), else the copy kept; nil when the op does not prepack. build
// returns the packed operand and the bytes it holds.
func prepacked(weight bool, op *stablehlo.Op, i int, l *literal.Literal, key [3]int, bytes int64, build func() (any, int)) any {
	if !prepackEnabled || !weight || !l.Frozen || len(l.Data) == 0 || bytes > prepackBudget-prepackBytes.Load() {
		return nil
	}
	data := unsafe.Pointer(unsafe.SliceData(l.Data))
	e, ok := packedWeights.get(op)
	if ok {
		if e.off {
			return nil
		}
		if e.src.Value() == l && e.data == data && e.n == len(l.Data) && e.key == key {
			prepackStats.hits.Add(1)
			if e.misses.Load() != 0 {
				e.misses.Store(0)
			}
			return e.v
		}
	}
	ne := &packedOperand{src: weak.Make(l), data: data, n: len(l.Data), key: key}
	if ok {
		ne.misses.Store(e.misses.Load() + 1)
	}
	if ne.misses.Load() >= prepackMaxMisses {
		packedWeights.put(op, &packedOperand{off: true})
		return nil
	}
	v, nb := build()
	ne.v = v
	prepackBytes.Add(int64(nb))
	runtime.AddCleanup(ne, func(n int64) { prepackBytes.Add(-n) }, int64(nb))
	prepackStats.packs.Add(1)
	packedWeights.put(op, ne)
	return v
}

// prepackedB returns the packed B of op's operand i, the k×n matrix b of
// literal l (gemm.PackB), or nil when the op does not prepack.
func prepackedB(env Env, op *stablehlo.Op, i int, l *literal.Literal, k, n int, b gemm.Matrix) *gemm.PackedB {
	v := prepacked(isWeightOperand(env, op, i), op, i, l, [3]int{k, n}, int64(4*k*n), func() (any, int) {
		pb := gemm.PackB(k, n, b)
		return pb, pb.Bytes()
	})
	pb, _ := v.(*gemm.PackedB)
	return pb
}

// envInt reads a non-negative integer from the environment, or def.
func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil && v >= 0 {
		return v
	}
	return def
}
