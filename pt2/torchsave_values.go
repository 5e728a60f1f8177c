package pt2

import (
	"fmt"

	"github.com/torchtpu/torchtpu/pt2/pickle"
)

func ints(v any, what string) ([]int64, error) {
	var items []any
	switch x := v.(type) {
	case pickle.Tuple:
		items = x
	case *pickle.List:
		items = x.Items
	default:
		return nil, fmt.Errorf("%s is %T, not a tuple", what, v)
	}
	out := make([]int64, len(items))
	for i, it := range items {
		n, ok := it.(int64)
		if !ok {
			return nil, fmt.Errorf("%s[%d] is %T, not an int", what, i, it)
		}
		out[i] = n
	}
	return out, nil
}

func newOrderedDict(args pickle.Tuple) (any, error) {
	d := pickle.NewDict()
	if len(args) == 0 {
		return d, nil
	}
	if len(args) != 1 {
		return nil, fmt.Errorf("takes at most one argument")
	}
	var pairs []any
	switch x := args[0].(type) {
	case *pickle.List:
		pairs = x.Items
	case pickle.Tuple:
		pairs = x
	default:
		return nil, fmt.Errorf("argument is %T", args[0])
	}
	for _, p := range pairs {
		kv, ok := p.(pickle.Tuple)
		if !ok || len(kv) != 2 {
			return nil, fmt.Errorf("item is not a pair")
		}
		if err := d.Set(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// tensorDict turns a decoded state dict / constants dict into FQN → tensor.
func tensorDict(v any, what string) (map[string]*torchTensor, error) {
	d, ok := v.(*pickle.Dict)
	if !ok {
		return nil, fmt.Errorf("%s: top-level value is %T, not a dict", what, v)
	}
	out := make(map[string]*torchTensor, d.Len())
	for i, k := range d.Keys {
		name, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("%s: key %d is %T, not a string", what, i, k)
		}
		t, ok := d.Values[i].(*torchTensor)
		if !ok {
			// torchbind / script objects cannot be rebuilt: skip, the
			// signature check reports them if the program needs them.
			continue
		}
		out[name] = t
	}
	return out, nil
}

// maxLeaves bounds the leaves flattenTensors visits: pickled values can
// share sub-values, so a small pickle can describe an exponentially large
// tree.
const maxLeaves = 1 << 20

// flattenTensors collects the tensors of a nested tuple/list/dict value in
// pytree order (dict values in insertion order). Non-tensor leaves become nil.
func flattenTensors(v any, depth int, out *[]*torchTensor) error {
	budget := maxLeaves
	return flatten(v, depth, out, &budget)
}

func flatten(v any, depth int, out *[]*torchTensor, budget *int) error {
	if depth > 64 {
		return fmt.Errorf("value nested too deeply")
	}
	if *budget--; *budget < 0 {
		return fmt.Errorf("value has more than %d parts", maxLeaves)
	}
	var items []any
	switch x := v.(type) {
	case *torchTensor:
		*out = append(*out, x)
		return nil
	case pickle.Tuple:
		items = x
	case *pickle.List:
		items = x.Items
	case *pickle.Dict:
		items = x.Values
	default:
		*out = append(*out, nil)
		return nil
	}
	for _, e := range items {
		if err := flatten(e, depth+1, out, budget); err != nil {
			return err
		}
	}
	return nil
}
