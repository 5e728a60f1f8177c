package eager

import (
	"fmt"
	"strings"
	"sync"

	"github.com/torchtpu/torchtpu/aten"
)

// eagerOp is an op the caller interned once (by name and PyTorch's schema)
// and then calls by number: the registry entry that computes it, and how
// PyTorch's arguments and returns map onto that entry.
//
// In-place and out= overloads are computed by their functional entry
// (add_.Tensor and add.out by add.Tensor); the device then casts each
// result to the dtype of the tensor it writes and stores it through that
// tensor's view. So a write into x[1:3] lands in x's storage.
type eagerOp struct {
	id     int32
	name   string
	schema *aten.Schema // PyTorch's
	entry  *aten.Entry  // the functional entry; nil: the device declines the op
	// bindName[i] is the entry's parameter bound to PyTorch's argument i
	// ("" for an out= argument, or one the entry lacks).
	bindName []string
	// written[i] marks an argument the op writes (Tensor(a!)).
	written []bool
	// retArg[j] is the argument PyTorch's return j aliases (a written
	// one), or -1 for a new tensor.
	retArg []int
	// dtypeFrom is the out= argument whose dtype a factory's functional
	// entry computes in (arange.start_out by arange.start_step with
	// dtype=out.dtype), or -1.
	dtypeFrom int
	reason    string // why the device declines the op
	// dropped are PyTorch's arguments the entry lacks and that do not
	// change the result.
	dropped map[string]bool
	// alt computes the op when the arguments alt writes are device
	// tensors: an op that updates arguments its schema does not mark
	// written (native_batch_norm's running statistics).
	alt *altEntry
	// declined counts calls the device declined (run by the caller's
	// fallback).
	declined int64
	// gen is aten.UserGeneration() when the op was resolved: a declined
	// op is resolved again once users registered ops since.
	gen uint64
}

// OpID interns an op by its exact overload name and PyTorch's schema text
// and returns its number for Call. Unknown and unsupported ops get a
// number too: calling them reports why the device declines them.
func (d *Device) OpID(name, schema string) (int32, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	name = aten.CanonicalName(name)
	key := name + "\x00" + schema
	if id, ok := d.opIndex[key]; ok {
		return id, nil
	}
	s, err := aten.ParseSchema(schema)
	if err != nil {
		return 0, fmt.Errorf("op %s: schema %q: %w", name, schema, err)
	}
	op := &eagerOp{id: int32(len(d.ops)), name: name, schema: s, dtypeFrom: -1}
	op.resolve()
	d.ops = append(d.ops, op)
	d.opIndex[key] = op.id
	return op.id, nil
}

// Supported says whether the engine computes the op of this name and
// PyTorch schema: "" when it does, else why not (the caller may then
// register a decomposition for it).
func Supported(name, schema string) string {
	s, err := aten.ParseSchema(schema)
	if err != nil {
		return fmt.Sprintf("schema %q: %v", schema, err)
	}
	op := &eagerOp{name: aten.CanonicalName(name), schema: s, dtypeFrom: -1}
	op.resolve()
	if op.entry == nil {
		return op.reason
	}
	return ""
}

// resolve finds the entry computing op and maps arguments and returns.
func (op *eagerOp) resolve() {
	op.gen = aten.UserGeneration()
	s := op.schema
	op.written = make([]bool, len(s.Params))
	alias := map[string]int{}
	for i, p := range s.Params {
		if p.Mutable {
			op.written[i] = true
			if p.Alias != "" {
				alias[p.Alias] = i
			}
		}
	}
	op.retArg = make([]int, len(s.Returns))
	for j, r := range s.Returns {
		op.retArg[j] = -1
		if r.Alias != "" {
			i, ok := alias[r.Alias]
			if !ok {
				// A view (Tensor(a) without !): the caller makes views itself.
				op.reason = fmt.Sprintf("returns a view of an argument (alias set %s)", r.Alias)
				return
			}
			op.retArg[j] = i
		}
		switch r.Type.Base {
		case "Tensor":
		default:
			op.reason = fmt.Sprintf("return %d is a %s, not a tensor", j, r.Type)
			return
		}
	}
	_, iw, _ := implicitWrite(op.name)
	for i, p := range s.Params {
		if op.written[i] && !returned(op.retArg, i) && !hasValue(iw, p.Name) {
			op.reason = fmt.Sprintf("writes argument %s without returning it", p.Name)
			return
		}
		if p.Type.Base == "Generator" {
			op.reason = "random op: runs with PyTorch's CPU generator"
			return
		}
	}
	drop := map[string]bool{}
	if r, ok := renamed[op.name]; ok {
		if e, ok := aten.Lookup(r.to); ok {
			op.resolveWith(e, r.drop)
			return
		}
	}
	e, ok := aten.Lookup(op.name)
	if to, _, found := implicitWrite(op.name); found && !ok {
		// only the functional entry computes it
		e, ok = aten.Lookup(to)
	}
	switch {
	case ok && e.Base != nil:
		e = e.Base
	case ok:
	case s.Mutates():
		e = functionalOf(s, op.written)
		if e == nil {
			op.reason = "not in torchtpu's op registry (nor a functional overload of it)"
			return
		}
	default:
		op.reason = "not in torchtpu's op registry"
		return
	}
	op.resolveWith(e, drop)
}

// altEntry is a functional entry whose extra results (beyond PyTorch's
// returns) are stored into arguments: result index → argument name.
type altEntry struct {
	entry  *aten.Entry
	writes map[int]string
}

// implicitWrites lists ops whose PyTorch kernels update arguments in place
// without the schema saying so, and the registry entry returning the
// updated values.
var implicitWrites = map[string]struct {
	to     string
	writes map[int]string
}{
	// training updates the running statistics in place
	"aten::native_batch_norm.default": {"aten::_native_batch_norm_legit_functional.default",
		map[int]string{3: "running_mean", 4: "running_var"}},
	"aten::_native_batch_norm_legit.default": {"aten::_native_batch_norm_legit_functional.default",
		map[int]string{3: "running_mean", 4: "running_var"}},
	// the gradient scaler's in-place ops (torch.amp.GradScaler) write
	// arguments they do not return: the gradients (a list) and found_inf;
	// the growth tracker
	"aten::_amp_foreach_non_finite_check_and_unscale_.default": {"aten::_amp_foreach_non_finite_check_and_unscale.default",
		map[int]string{0: "self", 1: "found_inf"}},
	"aten::_amp_update_scale_.default": {"aten::_amp_update_scale.default", map[int]string{1: "growth_tracker"}},
	// cummax/cummin's kernels fill preallocated values and indices
	"aten::_cummax_helper.default": {"aten::cummax.default", map[int]string{0: "values", 1: "indices"}},
	"aten::_cummin_helper.default": {"aten::cummin.default", map[int]string{0: "values", 1: "indices"}},
}

// implicitWrite returns the functional op computing an op that updates
// arguments its schema does not return, and which of its results update
// which argument: the ops of implicitWrites, and the in-place forms of
// the optimizers' multi-tensor ops (_foreach_add_.Scalar returns nothing
// and writes its self list: _foreach_add.Scalar's result list).
func implicitWrite(name string) (to string, writes map[int]string, ok bool) {
	if w, ok := implicitWrites[name]; ok {
		return w.to, w.writes, true
	}
	base, overload, _ := strings.Cut(name, ".")
	if strings.HasPrefix(base, "aten::_foreach_") && strings.HasSuffix(base, "_") {
		return strings.TrimSuffix(base, "_") + "." + overload, map[int]string{0: "self"}, true
	}
	return "", nil, false
}

// renamed maps ops PyTorch's kernels call internally onto the registry's
// public op that computes the same thing, with the arguments it lacks
// (which do not change the result) dropped.
var renamed = map[string]struct {
	to   string
	drop map[string]bool
}{
	// unsafe only skips index checks in PyTorch's kernel.
	"aten::_index_put_impl_.default": {"aten::index_put.default", map[string]bool{"unsafe": true}},
}

// resolveWith maps op's arguments onto entry e (functional).
func (op *eagerOp) resolveWith(e *aten.Entry, drop map[string]bool) {
	s := op.schema
	if e.Base != nil {
		e = e.Base
	}
	op.dropped = drop
	fs := e.ParsedSchema()
	if fs == nil {
		op.reason = fmt.Sprintf("registry schema of %s does not parse", e.Name)
		return
	}
	op.bindName = make([]string, len(s.Params))
	for i, p := range s.Params {
		if op.written[i] && p.Name != "self" && returned(op.retArg, i) {
			if op.dtypeFrom < 0 && fs.Param("dtype") >= 0 && s.Param("dtype") < 0 {
				op.dtypeFrom = i
			}
			continue // an out= argument
		}
		name := p.Name
		if fs.Param(name) < 0 && i == 0 && name == "self" && len(fs.Params) > 0 {
			name = fs.Params[0].Name // dropout_(self, …) computed by dropout(input, …)
		}
		if fs.Param(name) < 0 {
			continue // checked per call: only None or a default may be dropped
		}
		op.bindName[i] = name
	}
	op.entry = e
	if to, writes, ok := implicitWrite(op.name); ok {
		if ae, ok := aten.Lookup(to); ok {
			op.alt = &altEntry{entry: ae, writes: writes}
		}
	}
}

var entriesByBase struct {
	once sync.Once
	m    map[string][]*aten.Entry
}

// byBase indexes the registry's entries by base name ("aten::add").
func byBase() map[string][]*aten.Entry {
	entriesByBase.once.Do(func() {
		m := map[string][]*aten.Entry{}
		for _, e := range aten.Entries() {
			if i := strings.LastIndexByte(e.Name, '.'); i > 0 {
				m[e.Name[:i]] = append(m[e.Name[:i]], e)
			}
		}
		entriesByBase.m = m
	})
	return entriesByBase.m
}

func hasValue(m map[int]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}

func returned(retArg []int, i int) bool {
	for _, a := range retArg {
		if a == i {
			return true
		}
	}
	return false
}

// functionalOf finds the registered overload of an out= or in-place op's
// base name whose parameters are the op's minus the ones it writes, plus
// optional ones (a factory's dtype, layout, device, pin_memory).
func functionalOf(s *aten.Schema, written []bool) *aten.Entry {
	base := strings.TrimSuffix(s.Name, "_")
	for _, e := range byBase()[base] {
		if e.Base != nil || e.Kind == aten.HostFallback {
			continue
		}
		fs := e.ParsedSchema()
		if fs == nil || len(fs.Returns) != len(s.Returns) {
			continue
		}
		n := 0
		match := true
		for i, p := range s.Params {
			if written[i] && p.Name != "self" {
				continue
			}
			n++
			k := fs.Param(p.Name)
			if k < 0 || fs.Params[k].Type.String() != p.Type.String() {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		for _, p := range fs.Params {
			if s.Param(p.Name) < 0 && !p.HasDefault && !p.Type.Optional {
				match = false
			}
		}
		if match && n <= len(fs.Params) {
			return e
		}
	}
	return nil
}
