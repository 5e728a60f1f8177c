package runtime

import (
	"context"

	"github.com/torchtpu/torchtpu/literal"
)

// BucketPolicy pads symbolic dims up to bucket sizes.
type BucketPolicy struct {
	Pow2  bool
	Sizes []int64
}

// BucketReport says whether bucketing is used for a program, and why not.
type BucketReport struct {
	Enabled bool     `json:"enabled"`
	Symbols []string `json:"symbols,omitempty"`
	Reason  string   `json:"reason,omitempty"`
}

type bucketPlan struct{ ok bool }

func (p *Program) bucketPlan(st *rtState) *bucketPlan { return &bucketPlan{} }

func (p *Program) runBucketed(ctx context.Context, st *rtState, bp *bucketPlan, inputs []*literal.Literal) ([]*literal.Literal, *Stats, error) {
	return p.runExact(ctx, inputs)
}
