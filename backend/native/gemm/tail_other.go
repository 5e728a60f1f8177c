//go:build !amd64 || purego

package gemm

type tailArgs struct{}

func dotTail6(p *tailArgs) {}

type tailPArgs struct{}

func dotTailP6(p *tailPArgs) {}

const hasDotTail = false

var dotTailCols = 0
