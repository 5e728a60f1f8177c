// Package limits states how much a file from an untrusted source may ask
// for: the largest tensor, the total tensor bytes of one file, the size of
// a program's text and the nesting depth of its values. Every reader of
// untrusted bytes (pt2, pt2/pickle, safetensors, stablehlo) checks these
// before it allocates, and fails with an error naming the limit and the
// environment variable that raises it.
//
// The defaults come from the environment, read once:
//
//	TORCHTPU_MAX_TENSOR_BYTES   one tensor                               8 GiB
//	TORCHTPU_MAX_WEIGHT_BYTES   all tensors of one archive or I/O file  64 GiB
//	TORCHTPU_MAX_PROGRAM_BYTES  a program's text (model JSON, MLIR)    256 MiB
//	TORCHTPU_MAX_NESTING        nesting depth of JSON values, pickled      500
//	                            values, MLIR regions, attributes, types
//
// A library user can also pass a Limits value to the readers that take
// one (pt2.ReadWithOptions, stablehlo.ParseWithLimits,
// safetensors.DecodeWithLimits; pickle.Unpickler.MaxDepth). The native
// backend and literal.New check every allocation against
// TORCHTPU_MAX_TENSOR_BYTES (literal.MaxBytes) as well.
package limits

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
)

// Limits bounds what one file may ask for. A zero field means the default.
type Limits struct {
	TensorBytes  int64 // bytes of one tensor
	WeightBytes  int64 // bytes of all tensors of one archive or I/O file
	ProgramBytes int64 // bytes of a program's text: a model JSON, an MLIR file
	Nesting      int   // nesting depth of JSON values, pickled values, MLIR regions
}

// The environment variables that set the defaults.
const (
	EnvTensorBytes  = "TORCHTPU_MAX_TENSOR_BYTES"
	EnvWeightBytes  = "TORCHTPU_MAX_WEIGHT_BYTES"
	EnvProgramBytes = "TORCHTPU_MAX_PROGRAM_BYTES"
	EnvNesting      = "TORCHTPU_MAX_NESTING"
)

// Built-in defaults, used when the environment does not set a limit.
const (
	DefaultTensorBytes  = 8 << 30
	DefaultWeightBytes  = 64 << 30
	DefaultProgramBytes = 256 << 20
	DefaultNesting      = 500
)

var fromEnv = sync.OnceValue(func() Limits {
	return Limits{
		TensorBytes:  envInt(EnvTensorBytes, DefaultTensorBytes),
		WeightBytes:  envInt(EnvWeightBytes, DefaultWeightBytes),
		ProgramBytes: envInt(EnvProgramBytes, DefaultProgramBytes),
		Nesting:      int(min(envInt(EnvNesting, DefaultNesting), 1<<20)),
	}
})

// Default returns the limits the environment sets (see the package
// documentation), read once per process.
func Default() Limits { return fromEnv() }

// OrDefault returns l with every zero (or negative) field replaced by its
// default.
func (l Limits) OrDefault() Limits {
	d := Default()
	if l.TensorBytes <= 0 {
		l.TensorBytes = d.TensorBytes
	}
	if l.WeightBytes <= 0 {
		l.WeightBytes = d.WeightBytes
	}
	if l.ProgramBytes <= 0 {
		l.ProgramBytes = d.ProgramBytes
	}
	if l.Nesting <= 0 {
		l.Nesting = d.Nesting
	}
	return l
}

// envInt reads a positive integer; an unset, malformed or non-positive
// value gives def.
func envInt(name string, def int64) int64 {
	if v := os.Getenv(name); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return def
}

// Error is the error of a limit exceeded.
type Error struct {
	What  string // what exceeded it: "tensor \"w\" (f32[1000000000])"
	Asked int64  // what the file asked for
	Limit int64
	Env   string // the environment variable that raises it
	Unit  string // "bytes" or "levels"
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %d %s exceeds the limit of %d (raise it with %s)", e.What, e.Asked, e.Unit, e.Limit, e.Env)
}

// Tensor checks the byte size of one tensor.
func (l Limits) Tensor(what string, bytes int64) error {
	if bytes > l.OrDefault().TensorBytes {
		return &Error{What: what, Asked: bytes, Limit: l.OrDefault().TensorBytes, Env: EnvTensorBytes, Unit: "bytes"}
	}
	return nil
}

// Program checks the size of a program's text.
func (l Limits) Program(what string, bytes int64) error {
	if bytes > l.OrDefault().ProgramBytes {
		return &Error{What: what, Asked: bytes, Limit: l.OrDefault().ProgramBytes, Env: EnvProgramBytes, Unit: "bytes"}
	}
	return nil
}

// Depth checks a nesting depth.
func (l Limits) Depth(what string, depth int) error {
	if n := l.OrDefault().Nesting; depth > n {
		return &Error{What: what, Asked: int64(depth), Limit: int64(n), Env: EnvNesting, Unit: "levels"}
	}
	return nil
}

// Budget counts the tensor bytes read from one file against WeightBytes.
// It is not safe for concurrent use.
type Budget struct {
	limit, used int64
}

// NewBudget starts a count for one file.
func (l Limits) NewBudget() *Budget { return &Budget{limit: l.OrDefault().WeightBytes} }

// Take charges n bytes (checked before they are allocated); it fails when
// the file's tensors would exceed WeightBytes in all.
func (b *Budget) Take(what string, n int64) error {
	if n < 0 || n > b.limit-b.used {
		asked := b.used + max(n, 0)
		if asked < b.used { // overflow
			asked = math.MaxInt64
		}
		return &Error{What: what + ": tensors of the file in all", Asked: asked, Limit: b.limit, Env: EnvWeightBytes, Unit: "bytes"}
	}
	b.used += n
	return nil
}

// Used is the number of bytes charged so far.
func (b *Budget) Used() int64 { return b.used }
