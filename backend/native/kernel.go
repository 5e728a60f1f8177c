// Package native is the embedded CPU backend: it executes StableHLO modules
// in Go. This file holds the contract between the interpreter and the op
// kernels, which live in one file per op family.
package native

import (
	"context"
	"fmt"
	"sort"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Value is a runtime value: *literal.Literal for a tensor (quantized
// tensors hold their storage values; the op's types carry the parameters),
// Tuple, or Token.
type Value any

// Tuple is a runtime tuple.
type Tuple []Value

// Token is the runtime value of !stablehlo.token.
type Token struct{}

// Env is what a kernel may ask of the interpreter.
type Env interface {
	// Context is the context of the running execution.
	Context() context.Context
	// CallRegion evaluates a single-block region with the given block
	// arguments and returns the operands of its terminator. It shares the
	// calling function's frame, so one kernel must not call it from
	// several goroutines at once.
	CallRegion(r *stablehlo.Region, args []Value) ([]Value, error)
	// CallFunc evaluates a function of the module by name.
	CallFunc(name string, args []Value) ([]Value, error)
	// Replica and Partition identify the process running this op
	// (collectives); NumReplicas and NumPartitions give the grid.
	Replica() int
	Partition() int
	NumReplicas() int
	NumPartitions() int
	// Collective exchanges one value with every process in group (process
	// ids in the flattened replica-major grid); it blocks until all members
	// of the group have called it for the same op and key, and returns the
	// members' values in group order.
	Collective(op *stablehlo.Op, key string, group []int, v Value) ([]Value, error)
}

// Kernel evaluates one op on runtime values. It returns one value per op
// result. It must not modify its inputs.
type Kernel func(env Env, op *stablehlo.Op, in []Value) ([]Value, error)

var kernels = map[string]Kernel{}

// register installs a kernel for an op name ("stablehlo.add"). Called from
// init() in the op-family files; a duplicate is a programming error.
func register(name string, k Kernel) {
	if _, dup := kernels[name]; dup {
		panic("native: duplicate kernel for " + name)
	}
	if wrap := kernelWrappers[name]; wrap != nil { // a fast path installed first (fast_hooks.go)
		k = wrap(k)
	}
	kernels[name] = k
}

// Supported lists the op names with a kernel, sorted.
func Supported() []string {
	out := make([]string, 0, len(kernels))
	for n := range kernels {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// tensorArg returns operand i as a literal, or an error naming the op.
func tensorArg(op *stablehlo.Op, in []Value, i int) (*literal.Literal, error) {
	if i >= len(in) {
		return nil, fmt.Errorf("%s: missing operand #%d", op.Name, i)
	}
	l, ok := in[i].(*literal.Literal)
	if !ok {
		return nil, fmt.Errorf("%s: operand #%d is %T, want a tensor", op.Name, i, in[i])
	}
	return l, nil
}

// resultType returns the static tensor type of result i, or nil when the
// result is not a tensor or has dynamic dims (the kernel then computes the
// shape from its inputs).
func resultType(op *stablehlo.Op, i int) *stablehlo.TensorType {
	if i >= len(op.Results) {
		return nil
	}
	t := stablehlo.AsTensor(op.Results[i].Type)
	if t == nil || !t.IsStatic() {
		return nil
	}
	return t
}
