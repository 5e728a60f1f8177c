// Package aten is the op registry: one Entry per exact overload name
// ("aten::add.Tensor") with its schema, its lowering to StableHLO (or its
// decomposition into other entries), and an optional host kernel for ops
// whose output shape depends on data.
//
// Families register their entries from init() in their own files
// (pointwise.go, reduce.go, view.go, nn_conv.go, ...). In-place ("add_")
// and out= variants are derived from the functional entry on lookup.
package aten

import (
	"fmt"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"
)

// Kind says how an entry runs.
type Kind uint8

// Entry kinds.
const (
	// Lowered: Lower emits StableHLO directly.
	Lowered Kind = iota + 1
	// Decomposed: Lower calls other entries (LowerCtx.Call) or is written
	// in terms of their lowerings.
	Decomposed
	// HostFallback: the output shape depends on data; Host runs on
	// literals between compiled segments.
	HostFallback
)

func (k Kind) String() string {
	switch k {
	case Lowered:
		return "lowered"
	case Decomposed:
		return "decomposed"
	case HostFallback:
		return "host fallback"
	}
	return "unsupported"
}

// LowerFunc emits StableHLO for one call. It returns one Value per schema
// return (a tensor, a Tensor[] list, or a Python scalar for SymInt and
// Scalar returns).
type LowerFunc func(ctx *LowerCtx, args *Args) ([]Value, error)

// HostFunc runs one call on host literals (Args.Literal) and returns host
// values (LiteralValue, IntValue, ...).
type HostFunc func(ctx *HostCtx, args *Args) ([]Value, error)

// Entry is one registered overload.
type Entry struct {
	// Name is the exact overload: "aten::add.Tensor", "aten::abs.default",
	// "_operator.getitem" (as fx.Node.Target spells it).
	Name string
	// Schema is the schema text; empty means the embedded table's entry
	// for Name (core_aten_ops.txt and schemas_extra.txt).
	Schema string
	Kind   Kind
	Lower  LowerFunc
	Host   HostFunc

	// File is the source file whose init() registered the entry (for
	// listings and per-family tests).
	File string
	// User marks an entry registered at run time for a user's op
	// (RegisterUser), which a later registration may replace.
	User bool

	// schema is parsed on first use: a program uses a few dozen of the
	// registered entries, and parsing them all made up most of the
	// process's start-up time and allocations.
	schema *lazySchema
	// Base is the functional entry an in-place or out= variant was
	// derived from (nil otherwise).
	Base *Entry
}

// ParsedSchema returns the entry's schema; nil only if its text does not
// parse, which TestEverySchemaParses rules out for the registered entries.
func (e *Entry) ParsedSchema() *Schema {
	s, _ := e.parsed()
	return s
}

// parsed returns the entry's schema, parsing it on first use.
func (e *Entry) parsed() (*Schema, error) {
	if e.schema == nil {
		return nil, fmt.Errorf("%s: entry has no schema", e.Name)
	}
	l := e.schema
	l.once.Do(func() {
		l.s, l.err = ParseSchema(l.text)
		if l.err != nil {
			l.err = fmt.Errorf("%s: %w", e.Name, l.err)
		}
	})
	return l.s, l.err
}

// lazySchema is a schema text parsed once, when first needed.
type lazySchema struct {
	once sync.Once
	text string
	s    *Schema
	err  error
}

// parsedSchema wraps an already parsed schema.
func parsedSchema(s *Schema) *lazySchema {
	l := &lazySchema{text: s.Text, s: s}
	l.once.Do(func() {})
	return l
}

var (
	regMu    sync.Mutex
	registry = map[string]*Entry{}
)

// Register adds an entry. It panics on a duplicate name, a missing schema
// or a missing function: programming errors at start-up. The schema is
// parsed when first used (TestEverySchemaParses parses them all).
func Register(e Entry) {
	name := CanonicalName(e.Name)
	text := e.Schema
	if text == "" {
		text = schemaText(name)
	}
	if text == "" {
		panic("aten: no schema for " + name)
	}
	switch {
	case e.Kind == 0:
		panic("aten: entry " + name + " has no Kind")
	case e.Kind == HostFallback && e.Host == nil:
		panic("aten: host fallback " + name + " has no Host function")
	case e.Kind != HostFallback && e.Lower == nil:
		panic("aten: entry " + name + " has no Lower function")
	}
	e.Name, e.schema = name, &lazySchema{text: text}
	e.File = registeringFile()
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("aten: duplicate registration of " + name)
	}
	registry[name] = &e
}

// registeringFile finds the file of the init function on the call stack.
func registeringFile() string {
	pcs := make([]uintptr, 16)
	n := goruntime.Callers(2, pcs)
	frames := goruntime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if i := strings.LastIndex(f.Function, ".init."); i >= 0 && !strings.Contains(f.Function[i+1:], "func") {
			return filepath.Base(f.File)
		}
		if !more {
			return ""
		}
	}
}

// CanonicalName normalizes an op name to the registry spelling:
// "torch.ops.aten.add.Tensor", "aten.add.Tensor", "aten::add.Tensor" →
// "aten::add.Tensor"; "aten::abs" → "aten::abs.default";
// "<built-in function getitem>" → "_operator.getitem".
func CanonicalName(name string) string {
	name = strings.TrimSpace(name)
	if rest, ok := strings.CutPrefix(name, "<built-in function "); ok {
		return "_operator." + strings.TrimSuffix(rest, ">")
	}
	if rest, ok := strings.CutPrefix(name, "torch.ops."); ok {
		name = rest
	}
	if !strings.Contains(name, "::") {
		ns, op, ok := strings.Cut(name, ".")
		if !ok || ns == "_operator" || ns == "torch" || ns == "math" {
			return name
		}
		name = ns + "::" + op
	}
	ns, op, _ := strings.Cut(name, "::")
	if !strings.Contains(op, ".") {
		op += ".default"
	}
	return ns + "::" + op
}

// Lookup finds the entry for an op name (any spelling CanonicalName
// accepts). In-place and out= overloads that are not registered are
// derived from their functional entry.
func Lookup(name string) (*Entry, bool) {
	name = CanonicalName(name)
	regMu.Lock()
	defer regMu.Unlock()
	if e, ok := registry[name]; ok {
		return e, true
	}
	e := deriveVariant(name)
	if e == nil {
		return nil, false
	}
	registry[name] = e
	return e, true
}

// Entries returns all registered entries (derived variants included once
// looked up), sorted by name.
func Entries() []*Entry {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]*Entry, 0, len(registry))
	for _, e := range registry {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Call lowers one call of the entry: it binds nothing (args are already
// bound to this entry's schema), runs Lower and reports accessor errors.
func (e *Entry) Call(ctx *LowerCtx, args *Args) ([]Value, error) {
	if e.Lower == nil {
		return nil, fmt.Errorf("%s: %w", e.Name, ErrHostOnly)
	}
	args.ctx = ctx
	mark := ctx.errMark()
	out, err := e.Lower(ctx, args)
	if aerr := args.Err(); aerr != nil {
		return nil, aerr
	}
	if err != nil {
		return nil, err
	}
	if cerr := ctx.errSince(mark); cerr != nil {
		return nil, cerr
	}
	es, err := e.parsed()
	if err != nil {
		return nil, err
	}
	if n := es.NumResults(); len(out) != n {
		return nil, fmt.Errorf("%s: lowering returned %d values, schema has %d returns", e.Name, len(out), n)
	}
	return out, nil
}

// ErrHostOnly is returned when an entry that only has a host kernel is
// asked to lower.
var ErrHostOnly = fmt.Errorf("op runs on the host only (data-dependent output shape)")
