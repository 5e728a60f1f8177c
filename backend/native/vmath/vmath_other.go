//go:build !amd64 || purego

package vmath

// vmathLanes is 0: no vector loops in this build; vrow runs the scalar
// forms.
var vmathLanes = 0

func vloops(int, []float32, []float32) int { return 0 }

func vloops2(int, []float32, []float32, []float32) int { return 0 }

func vmathLaneCounts() []int { return nil }
