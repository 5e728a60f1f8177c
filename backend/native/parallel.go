package native

import "sync"

// runParts calls body on parts contiguous ranges that cover [0, n), the
// first on the caller's goroutine and the others on their own, and waits
// for all. With parts below 2 it is body(0, n). The callers' bodies write
// disjoint outputs, so how [0, n) is cut changes no result.
func runParts(n, parts int, body func(lo, hi int)) {
	if parts < 2 {
		body(0, n)
		return
	}
	var wg sync.WaitGroup
	for c := 1; c < parts; c++ {
		lo, hi := c*n/parts, (c+1)*n/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(lo, hi)
		}()
	}
	body(0, n/parts)
	wg.Wait()
}
