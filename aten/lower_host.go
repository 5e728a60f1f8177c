package aten

import "context"

// HostCtx is what a host fallback kernel gets: it runs between compiled
// segments on host literals.
type HostCtx struct {
	Context context.Context
}
