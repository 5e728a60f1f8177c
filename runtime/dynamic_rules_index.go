package runtime

import (
	"fmt"

	"github.com/torchtpu/torchtpu/fx"
)

// Indexing along a padded dim: index.Tensor may read a padded dim of its
// source when the index tensor's values are known to point at valid
// positions wherever the index tensor is valid. Such tensors are tracked
// from their creation (arange over a padded size) through the ops that
// keep each value equal to its position (plus a constant).

// iotaVal says that a tensor's value at each position is that position's
// coordinate along its one dim padded by sym, plus shift.
type iotaVal struct {
	sym   string
	shift int64
}

// iotaKeeps are the ops that keep an iota's values (layout ops, copies).
var iotaKeeps = map[string]bool{
	"aten::unsqueeze": true, "aten::view": true, "aten::reshape": true, "aten::_unsafe_view": true,
	"aten::expand": true, "aten::clone": true, "aten::alias": true, "aten::contiguous": true,
	"aten::_to_copy": true, "aten::slice.Tensor": true, "aten::squeeze.dim": true, "aten::squeeze.dims": true,
	"aten::permute": true, "aten::transpose.int": true, "aten::t": true,
}

// flowIota records n's output as an iota when n makes one or keeps one.
func (a *padAnalysis) flowIota(n *fx.Node) {
	if len(n.Outputs) != 1 || n.Outputs[0].Kind != fx.ArgTensor {
		return
	}
	out := n.Outputs[0].Name
	l, ok := a.layouts[out]
	if !ok {
		return
	}
	s := ""
	for _, dl := range l { // one dim holds the symbol, alone
		if dl.padded() {
			if s != "" || dl.lone() == "" {
				return
			}
			s = dl.lone()
		}
	}
	if m := a.g.Tensor(out); m == nil || !m.DType.IsInteger() {
		return
	}
	o := op(n)
	switch {
	case o == "aten::arange.start_step" || o == "aten::arange.start" || o == "aten::arange":
		start, _ := intArg(n, "start")
		if step, ok := intArg(n, "step"); ok && step != 1 {
			return
		}
		a.iotas[out] = iotaVal{sym: s, shift: start}
	case iotaKeeps[o]:
		if iv, ok := a.iotas[tensorArg(n, "self")]; ok && iv.sym == s {
			if o == "aten::slice.Tensor" { // a slice along the iota's dim shifts it
				if start, _ := intArg(n, "start"); start != 0 {
					return
				}
			}
			a.iotas[out] = iv
		}
	case o == "aten::add.Tensor" || o == "aten::sub.Tensor":
		iv, ok := a.iotas[tensorArg(n, "self")]
		other, has := n.Input("other")
		if !ok || !has || other.Kind != fx.ArgInt || iv.sym != s {
			return
		}
		if alpha, ok := intArg(n, "alpha"); ok && alpha != 1 {
			return
		}
		k := other.Int
		if o == "aten::sub.Tensor" {
			k = -k
		}
		a.iotas[out] = iotaVal{sym: s, shift: iv.shift + k}
	}
}

// indexRule: index.Tensor with index tensors for the leading dims of the
// source. A padded source dim must be indexed by an iota whose valid
// values are valid positions of it; the result's leading dims are the
// broadcast index tensors', then the source's remaining dims.
func indexRule(a *padAnalysis, n *fx.Node, ins []string) error {
	self := tensorArg(n, "self")
	sl, ok := a.layouts[self]
	if !ok {
		var err error
		if sl, err = a.fromMeta(self, nil); err != nil {
			return err
		}
	}
	iv, _ := n.Input("indices")
	names := iv.Names
	k := len(names)
	for i, name := range names {
		if name == "" {
			return fmt.Errorf("indices with a None")
		}
		if i >= len(sl) {
			return fmt.Errorf("more indices than dims")
		}
		if !sl[i].padded() {
			continue
		}
		it, isIota := a.iotas[name]
		il, tracked := a.layouts[name]
		if !isIota || !tracked || sl[i].lone() != it.sym || it.shift < 0 {
			return fmt.Errorf("indexes padded dim %d with values not known to be valid positions", i)
		}
		var ioff int64
		for _, dl := range il {
			if dl.lone() == it.sym {
				ioff = dl.off()
			}
		}
		if ioff+it.shift > sl[i].off() {
			return fmt.Errorf("indexes padded dim %d past its valid positions", i)
		}
	}
	out := n.Outputs[0].Name
	m := a.g.Tensor(out)
	if m == nil {
		return fmt.Errorf("no output shape")
	}
	br := m.Rank() - (len(sl) - k)
	if br < 0 {
		return fmt.Errorf("unexpected output rank")
	}
	keep := map[int]dimLayout{}
	for _, name := range names {
		il, tracked := a.layouts[name]
		if !tracked {
			if a.metaPadded(name) {
				return fmt.Errorf("index %s has an untracked padded dim", name)
			}
			continue
		}
		off := br - len(il)
		if off < 0 {
			return fmt.Errorf("index of higher rank than the broadcast")
		}
		for j, dl := range il {
			if !dl.padded() {
				continue
			}
			if keep[off+j] != nil && !keep[off+j].equal(dl) {
				return fmt.Errorf("indices disagree on a padded dim")
			}
			keep[off+j] = dl
		}
	}
	for j, dl := range sl[k:] {
		if dl.padded() {
			keep[br+j] = dl
		}
	}
	res, err := a.fromMeta(out, keep)
	if err != nil {
		return err
	}
	a.set(out, res)
	return nil
}

func init() {
	padRules["aten::index.Tensor"] = indexRule
}
