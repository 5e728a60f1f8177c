package native

import "github.com/torchtpu/torchtpu/backend/native/internal/pool"

// parallel runs f(0) … f(n-1) on up to threads goroutines (the caller's
// included) of the helper pool (internal/pool), each taking the next index
// when done with its last. A panic in f, on whichever goroutine, is raised
// again on the caller's once every helper is done with the loop.
func parallel(threads, n int, f func(i int)) { pool.Run(threads, n, f) }
