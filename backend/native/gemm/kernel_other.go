//go:build !amd64 || purego

package gemm

func kernelSets() []*kernelSet { return []*kernelSet{generic} }

var active = generic
