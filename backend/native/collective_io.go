package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Tokens and host/device transfers: after_all, create_token, send, recv,
// infeed, outfeed. send/recv pass values over per-channel queues of the
// process grid; with source_target_pairs, per (channel, target) queues.

func init() {
	token := func(Env, *stablehlo.Op, []Value) ([]Value, error) { return []Value{Token{}}, nil }
	register("stablehlo.after_all", token)
	register("stablehlo.create_token", token)
	register("stablehlo.send", evalSend)
	register("stablehlo.recv", evalRecv)
	register("stablehlo.infeed", evalInfeed)
	register("stablehlo.outfeed", evalOutfeed)
}

func gridOf(env Env) (*process, error) {
	fr, err := frameOf(env)
	if err != nil {
		return nil, err
	}
	return fr.proc, nil
}

// queueKey picks the send/recv queue: by channel, and by target process
// when source_target_pairs is given.
func queueKey(h int64, target int) int64 { return h<<20 | int64(target+1) }

func evalSend(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	pr, err := gridOf(env)
	if err != nil {
		return nil, err
	}
	if len(in) < 1 {
		return nil, fmt.Errorf("missing token operand")
	}
	payload := Tuple(append([]Value(nil), in[:len(in)-1]...))
	h := channelID(op)
	pairs, _, err := groupsAttr(op, "source_target_pairs")
	if err != nil {
		return nil, err
	}
	if len(pairs) == 0 {
		err = pr.grid.send(pr.ctx, queueKey(h, -1), payload)
	} else {
		me := pr.grid.id(pr)
		for _, p := range pairs {
			if len(p) == 2 && p[0] == int64(me) {
				if err = pr.grid.send(pr.ctx, queueKey(h, int(p[1])), payload); err != nil {
					break
				}
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return []Value{Token{}}, nil
}

func evalRecv(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	pr, err := gridOf(env)
	if err != nil {
		return nil, err
	}
	h := channelID(op)
	pairs, _, err := groupsAttr(op, "source_target_pairs")
	if err != nil {
		return nil, err
	}
	key := queueKey(h, -1)
	if len(pairs) > 0 {
		key = queueKey(h, pr.grid.id(pr))
		found := false
		for _, p := range pairs {
			found = found || len(p) == 2 && p[1] == int64(pr.grid.id(pr))
		}
		if !found {
			return zeroResults(op)
		}
	}
	v, err := pr.grid.recv(pr.ctx, key)
	if err != nil {
		return nil, err
	}
	payload, _ := v.(Tuple)
	if len(payload) != len(op.Results)-1 {
		return nil, fmt.Errorf("received %d values, op has %d payload results", len(payload), len(op.Results)-1)
	}
	return append(append([]Value(nil), payload...), Token{}), nil
}

// zeroResults gives zero tensors for the payload results and a token.
func zeroResults(op *stablehlo.Op) ([]Value, error) {
	out := make([]Value, len(op.Results))
	for i := range op.Results {
		t := resultType(op, i)
		if t == nil {
			out[i] = Token{}
			continue
		}
		l, err := literal.New(t.DType(), t.Shape)
		if err != nil {
			return nil, err
		}
		out[i] = l
	}
	return out, nil
}

func evalInfeed(env Env, op *stablehlo.Op, _ []Value) ([]Value, error) {
	pr, err := gridOf(env)
	if err != nil {
		return nil, err
	}
	out := make([]Value, 0, len(op.Results))
	for i := 0; i < len(op.Results)-1; i++ {
		v, err := pr.grid.popInfeed()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return append(out, Token{}), nil
}

func evalOutfeed(env Env, _ *stablehlo.Op, in []Value) ([]Value, error) {
	pr, err := gridOf(env)
	if err != nil {
		return nil, err
	}
	if len(in) > 0 {
		pr.grid.pushOutfeed(in[:len(in)-1])
	}
	return []Value{Token{}}, nil
}
