package native

// runParts calls body on parts contiguous ranges that cover [0, n) on up
// to parts goroutines, the caller's included (parallel, fast_conv_pool.go),
// and waits for all. With parts below 2 it is body(0, n). The callers'
// bodies write disjoint outputs, so how [0, n) is cut changes no result.
func runParts(n, parts int, body func(lo, hi int)) {
	if parts < 2 {
		body(0, n)
		return
	}
	parallel(parts, parts, func(c int) { body(c*n/parts, (c+1)*n/parts) })
}
