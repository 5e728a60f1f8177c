//go:build !amd64 || purego

package gemm

type tailArgs struct{}

func dotTail6(p *tailArgs) {}

const hasDotTail = false

var dotTailCols = 0
