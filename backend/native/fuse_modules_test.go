package native

// The modules of TestFusionMatchesInterpreter (fuse_test.go). Every module
// here runs through the execution plan (fusion, buffer recycling, in-place
// writes) and op by op; the results must be the same bytes, on every run of
// the planned executable (the arena is reused).
var fuseModules = map[string]string{
	// the exact GELU's backward as PyTorch's decomposition gives it
	// (geluBackwardChain: one vector loop), and the same chain with the
	// root reading the sum first (left unfolded: where g and x are both
	// NaN the op returns the sum's NaN); rows of 1000, partial vectors
	"gelubwd": `func.func @main(%g: tensor<2x1000xf32>, %x: tensor<2x1000xf32>) -> (tensor<2x1000xf32>, tensor<2x1000xf32>) {
  %ka = stablehlo.constant dense<0.707106769> : tensor<2x1000xf32>
  %half = stablehlo.constant dense<0.5> : tensor<2x1000xf32>
  %one = stablehlo.constant dense<1.0> : tensor<2x1000xf32>
  %nh = stablehlo.constant dense<-0.5> : tensor<2x1000xf32>
  %kb = stablehlo.constant dense<0.398942292> : tensor<2x1000xf32>
  %0 = stablehlo.multiply %x, %ka : tensor<2x1000xf32>
  %1 = chlo.erf %0 : tensor<2x1000xf32> -> tensor<2x1000xf32>
  %2 = stablehlo.add %one, %1 : tensor<2x1000xf32>
  %3 = stablehlo.multiply %half, %2 : tensor<2x1000xf32>
  %4 = stablehlo.multiply %x, %x : tensor<2x1000xf32>
  %5 = stablehlo.multiply %4, %nh : tensor<2x1000xf32>
  %6 = stablehlo.exponential %5 : tensor<2x1000xf32>
  %7 = stablehlo.multiply %kb, %6 : tensor<2x1000xf32>
  %8 = stablehlo.multiply %x, %7 : tensor<2x1000xf32>
  %9 = stablehlo.add %3, %8 : tensor<2x1000xf32>
  %10 = stablehlo.multiply %g, %9 : tensor<2x1000xf32>
  %b0 = stablehlo.multiply %x, %ka : tensor<2x1000xf32>
  %b1 = chlo.erf %b0 : tensor<2x1000xf32> -> tensor<2x1000xf32>
  %b2 = stablehlo.add %b1, %one : tensor<2x1000xf32>
  %b3 = stablehlo.multiply %b2, %half : tensor<2x1000xf32>
  %b4 = stablehlo.multiply %x, %x : tensor<2x1000xf32>
  %b5 = stablehlo.multiply %b4, %nh : tensor<2x1000xf32>
  %b6 = stablehlo.exponential %b5 : tensor<2x1000xf32>
  %b7 = stablehlo.multiply %b6, %kb : tensor<2x1000xf32>
  %b8 = stablehlo.multiply %b7, %x : tensor<2x1000xf32>
  %b9 = stablehlo.add %b8, %b3 : tensor<2x1000xf32>
  %b10 = stablehlo.multiply %b9, %g : tensor<2x1000xf32>
  return %10, %b10 : tensor<2x1000xf32>, tensor<2x1000xf32>
}`,
	// selects whose predicate is uniform while a branch is a row
	// (selectUniformPred): lerp's |w| < 0.5 on a Python number over
	// several chunks, a predicate per row (segments of 1500), a bool
	// scalar choosing between a uniform value and a row; NaN weights
	// among the runs' values
	"uniformselect": `func.func @main(%x: tensor<3x1500xf32>, %y: tensor<3x1500xf32>, %w: tensor<f32>, %v: tensor<3xf32>, %b: tensor<i1>) -> (tensor<3x1500xf32>, tensor<3x1500xf32>, tensor<3x1500xf32>) {
  %wb = stablehlo.broadcast_in_dim %w, dims = [] : (tensor<f32>) -> tensor<3x1500xf32>
  %half = stablehlo.constant dense<0.5> : tensor<3x1500xf32>
  %aw = stablehlo.abs %wb : tensor<3x1500xf32>
  %p = stablehlo.compare LT, %aw, %half : (tensor<3x1500xf32>, tensor<3x1500xf32>) -> tensor<3x1500xi1>
  %d = stablehlo.subtract %y, %x : tensor<3x1500xf32>
  %m = stablehlo.multiply %wb, %d : tensor<3x1500xf32>
  %lo = stablehlo.add %x, %m : tensor<3x1500xf32>
  %r0 = stablehlo.select %p, %lo, %y : tensor<3x1500xi1>, tensor<3x1500xf32>
  %vb = stablehlo.broadcast_in_dim %v, dims = [0] : (tensor<3xf32>) -> tensor<3x1500xf32>
  %p1 = stablehlo.compare GT, %vb, %half : (tensor<3x1500xf32>, tensor<3x1500xf32>) -> tensor<3x1500xi1>
  %r1 = stablehlo.select %p1, %x, %d : tensor<3x1500xi1>, tensor<3x1500xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<i1>) -> tensor<3x1500xi1>
  %r2 = stablehlo.select %bb, %wb, %x : tensor<3x1500xi1>, tensor<3x1500xf32>
  return %r0, %r1, %r2 : tensor<3x1500xf32>, tensor<3x1500xf32>, tensor<3x1500xf32>
}`,
	// runs of 16 (the shortest period): a chunk of 64 segments, each
	// reading the constant's row at its segment (getScratch fills that
	// much of it)
	"period16": `func.func @main(%x: tensor<4x8x16x16xf32>, %b: tensor<4x8x16xf32>) -> tensor<4x8x16x16xf32> {
  %0 = stablehlo.broadcast_in_dim %b, dims = [0, 1, 2] : (tensor<4x8x16xf32>) -> tensor<4x8x16x16xf32>
  %1 = stablehlo.add %x, %0 : tensor<4x8x16x16xf32>
  %c = stablehlo.constant dense<2.5> : tensor<4x8x16x16xf32>
  %2 = stablehlo.multiply %1, %c : tensor<4x8x16x16xf32>
  %3 = stablehlo.subtract %c, %2 : tensor<4x8x16x16xf32>
  return %3 : tensor<4x8x16x16xf32>
}`,
	// one op between a tensor and a value per plane (fuse_planes.go):
	// squeeze-and-excitation's gate over 7×7 planes (runs of 49, the last
	// vector masked), the value first (4×4), per-channel values of one
	// image (8×8) on every binary op, a gate large enough for two threads
	// over a value the group may overwrite, and 2×2 planes (too short:
	// the chunked loop)
	"planes": `func.func @main(%x: tensor<2x24x7x7xf32>, %g: tensor<2x24x1x1xf32>, %y: tensor<2x24x4x4xf32>, %c: tensor<24xf32>, %z: tensor<1x24x8x8xf32>, %w: tensor<1x64x16x16xf32>, %h: tensor<64xf32>, %v: tensor<2x24x2x2xf32>) -> (tensor<2x24x7x7xf32>, tensor<2x24x4x4xf32>, tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>, tensor<1x64x16x16xf32>, tensor<2x24x2x2xf32>) {
  %0 = stablehlo.broadcast_in_dim %g, dims = [0, 1, 2, 3] : (tensor<2x24x1x1xf32>) -> tensor<2x24x7x7xf32>
  %1 = stablehlo.multiply %x, %0 : tensor<2x24x7x7xf32>
  %2 = stablehlo.broadcast_in_dim %g, dims = [0, 1, 2, 3] : (tensor<2x24x1x1xf32>) -> tensor<2x24x4x4xf32>
  %3 = stablehlo.subtract %2, %y : tensor<2x24x4x4xf32>
  %4 = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<24xf32>) -> tensor<1x24x8x8xf32>
  %5 = stablehlo.add %z, %4 : tensor<1x24x8x8xf32>
  %6 = stablehlo.divide %4, %z : tensor<1x24x8x8xf32>
  %7 = stablehlo.maximum %z, %4 : tensor<1x24x8x8xf32>
  %8 = stablehlo.minimum %4, %z : tensor<1x24x8x8xf32>
  %9 = stablehlo.divide %z, %4 : tensor<1x24x8x8xf32>
  %r = stablehlo.reverse %w, dims = [3] : tensor<1x64x16x16xf32>
  %10 = stablehlo.broadcast_in_dim %h, dims = [1] : (tensor<64xf32>) -> tensor<1x64x16x16xf32>
  %11 = stablehlo.multiply %10, %r : tensor<1x64x16x16xf32>
  %12 = stablehlo.broadcast_in_dim %g, dims = [0, 1, 2, 3] : (tensor<2x24x1x1xf32>) -> tensor<2x24x2x2xf32>
  %13 = stablehlo.multiply %v, %12 : tensor<2x24x2x2xf32>
  return %1, %3, %5, %6, %7, %8, %9, %11, %13 : tensor<2x24x7x7xf32>, tensor<2x24x4x4xf32>, tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>, tensor<1x64x16x16xf32>, tensor<2x24x2x2xf32>
}`,
	// SiLU after batch norm, as aten lowers it (one vector loop,
	// fuse_chains.go), and one whose exp is read twice (not folded)
	"bn_silu": `func.func @main(%x: tensor<2x8x5x7xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x5x7xf32> {
  %0 = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<8xf32>) -> tensor<2x8x5x7xf32>
  %1 = stablehlo.multiply %x, %0 : tensor<2x8x5x7xf32>
  %2 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<2x8x5x7xf32>
  %3 = stablehlo.add %1, %2 : tensor<2x8x5x7xf32>
  %4 = stablehlo.negate %3 : tensor<2x8x5x7xf32>
  %5 = stablehlo.exponential %4 : tensor<2x8x5x7xf32>
  %6 = stablehlo.constant dense<1.0> : tensor<2x8x5x7xf32>
  %7 = stablehlo.add %6, %5 : tensor<2x8x5x7xf32>
  %8 = stablehlo.divide %3, %7 : tensor<2x8x5x7xf32>
  return %8 : tensor<2x8x5x7xf32>
}`,
	// batch norm and hardswish as aten lowers it (one vector loop)
	"bn_hardswish": `func.func @main(%x: tensor<2x8x5x7xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x5x7xf32> {
  %0 = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<8xf32>) -> tensor<2x8x5x7xf32>
  %1 = stablehlo.multiply %x, %0 : tensor<2x8x5x7xf32>
  %2 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<2x8x5x7xf32>
  %3 = stablehlo.add %1, %2 : tensor<2x8x5x7xf32>
  %c3 = stablehlo.constant dense<3.0> : tensor<2x8x5x7xf32>
  %4 = stablehlo.add %3, %c3 : tensor<2x8x5x7xf32>
  %c0 = stablehlo.constant dense<0.0> : tensor<2x8x5x7xf32>
  %5 = stablehlo.maximum %4, %c0 : tensor<2x8x5x7xf32>
  %6 = stablehlo.compare NE, %4, %4, FLOAT : (tensor<2x8x5x7xf32>, tensor<2x8x5x7xf32>) -> tensor<2x8x5x7xi1>
  %7 = stablehlo.select %6, %4, %5 : tensor<2x8x5x7xi1>, tensor<2x8x5x7xf32>
  %c6 = stablehlo.constant dense<6.0> : tensor<2x8x5x7xf32>
  %8 = stablehlo.minimum %7, %c6 : tensor<2x8x5x7xf32>
  %9 = stablehlo.compare NE, %7, %7, FLOAT : (tensor<2x8x5x7xf32>, tensor<2x8x5x7xf32>) -> tensor<2x8x5x7xi1>
  %10 = stablehlo.select %9, %7, %8 : tensor<2x8x5x7xi1>, tensor<2x8x5x7xf32>
  %11 = stablehlo.multiply %3, %10 : tensor<2x8x5x7xf32>
  %12 = stablehlo.divide %11, %c6 : tensor<2x8x5x7xf32>
  return %12 : tensor<2x8x5x7xf32>
}`,
	// exact GELU as aten lowers it (one vector loop)
	"gelu": `func.func @main(%x: tensor<4x300xf32>) -> tensor<4x300xf32> {
  %k = stablehlo.constant dense<0.707106769> : tensor<4x300xf32>
  %0 = stablehlo.multiply %x, %k : tensor<4x300xf32>
  %1 = chlo.erf %0 : tensor<4x300xf32> -> tensor<4x300xf32>
  %one = stablehlo.constant dense<1.0> : tensor<4x300xf32>
  %2 = stablehlo.add %one, %1 : tensor<4x300xf32>
  %h = stablehlo.constant dense<0.5> : tensor<4x300xf32>
  %3 = stablehlo.multiply %x, %h : tensor<4x300xf32>
  %4 = stablehlo.multiply %3, %2 : tensor<4x300xf32>
  return %4 : tensor<4x300xf32>
}`,
	// the tanh-approximate GELU as HuggingFace's gelu_new is lowered (one
	// vector loop)
	"gelu_tanh": `func.func @main(%x: tensor<4x300xf32>) -> tensor<4x300xf32> {
  %h = stablehlo.constant dense<0.5> : tensor<4x300xf32>
  %0 = stablehlo.multiply %x, %h : tensor<4x300xf32>
  %1 = stablehlo.multiply %x, %x : tensor<4x300xf32>
  %2 = stablehlo.multiply %1, %x : tensor<4x300xf32>
  %k1 = stablehlo.constant dense<4.4714998453855515e-02> : tensor<4x300xf32>
  %3 = stablehlo.multiply %2, %k1 : tensor<4x300xf32>
  %4 = stablehlo.add %x, %3 : tensor<4x300xf32>
  %k2 = stablehlo.constant dense<7.978845834732056e-01> : tensor<4x300xf32>
  %5 = stablehlo.multiply %4, %k2 : tensor<4x300xf32>
  %6 = stablehlo.tanh %5 : tensor<4x300xf32>
  %one = stablehlo.constant dense<1.0> : tensor<4x300xf32>
  %7 = stablehlo.add %6, %one : tensor<4x300xf32>
  %8 = stablehlo.multiply %0, %7 : tensor<4x300xf32>
  return %8 : tensor<4x300xf32>
}`,
	// the same with the constants first and the halving last, as aten's
	// decomposition of gelu(approximate="tanh") orders them
	"gelu_tanh_aten": `func.func @main(%x: tensor<4x300xf32>) -> tensor<4x300xf32> {
  %1 = stablehlo.multiply %x, %x : tensor<4x300xf32>
  %2 = stablehlo.multiply %x, %1 : tensor<4x300xf32>
  %k1 = stablehlo.constant dense<4.4714998453855515e-02> : tensor<4x300xf32>
  %3 = stablehlo.multiply %k1, %2 : tensor<4x300xf32>
  %4 = stablehlo.add %3, %x : tensor<4x300xf32>
  %k2 = stablehlo.constant dense<7.978845834732056e-01> : tensor<4x300xf32>
  %5 = stablehlo.multiply %k2, %4 : tensor<4x300xf32>
  %6 = stablehlo.tanh %5 : tensor<4x300xf32>
  %one = stablehlo.constant dense<1.0> : tensor<4x300xf32>
  %7 = stablehlo.add %one, %6 : tensor<4x300xf32>
  %h = stablehlo.constant dense<0.5> : tensor<4x300xf32>
  %0 = stablehlo.multiply %h, %x : tensor<4x300xf32>
  %8 = stablehlo.multiply %7, %0 : tensor<4x300xf32>
  return %8 : tensor<4x300xf32>
}`,
	// a training graph's: the tanh is returned too (saved for the
	// backward), so only the chain up to it folds
	"gelu_tanh_saved": `func.func @main(%x: tensor<4x300xf32>) -> (tensor<4x300xf32>, tensor<4x300xf32>) {
  %h = stablehlo.constant dense<0.5> : tensor<4x300xf32>
  %0 = stablehlo.multiply %x, %h : tensor<4x300xf32>
  %1 = stablehlo.multiply %x, %x : tensor<4x300xf32>
  %2 = stablehlo.multiply %1, %x : tensor<4x300xf32>
  %k1 = stablehlo.constant dense<4.4714998453855515e-02> : tensor<4x300xf32>
  %3 = stablehlo.multiply %2, %k1 : tensor<4x300xf32>
  %4 = stablehlo.add %x, %3 : tensor<4x300xf32>
  %k2 = stablehlo.constant dense<7.978845834732056e-01> : tensor<4x300xf32>
  %5 = stablehlo.multiply %4, %k2 : tensor<4x300xf32>
  %6 = stablehlo.tanh %5 : tensor<4x300xf32>
  %one = stablehlo.constant dense<1.0> : tensor<4x300xf32>
  %7 = stablehlo.add %6, %one : tensor<4x300xf32>
  %8 = stablehlo.multiply %0, %7 : tensor<4x300xf32>
  return %8, %6 : tensor<4x300xf32>, tensor<4x300xf32>
}`,
	"silu_shared": `func.func @main(%x: tensor<3x333xf32>) -> tensor<3x333xf32> {
  %4 = stablehlo.negate %x : tensor<3x333xf32>
  %5 = stablehlo.exponential %4 : tensor<3x333xf32>
  %6 = stablehlo.constant dense<1.0> : tensor<3x333xf32>
  %7 = stablehlo.add %5, %6 : tensor<3x333xf32>
  %8 = stablehlo.divide %x, %7 : tensor<3x333xf32>
  %9 = stablehlo.multiply %8, %5 : tensor<3x333xf32>
  return %9 : tensor<3x333xf32>
}`,
	// ResNet's batch norm + ReLU: per-channel broadcasts, splat constants,
	// a value used twice inside the group.
	"bn_relu": `func.func @main(%x: tensor<2x8x5x7xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8x5x7xf32> {
  %0 = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<8xf32>) -> tensor<2x8x5x7xf32>
  %1 = stablehlo.multiply %x, %0 : tensor<2x8x5x7xf32>
  %2 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<2x8x5x7xf32>
  %3 = stablehlo.add %1, %2 : tensor<2x8x5x7xf32>
  %4 = stablehlo.constant dense<0.0> : tensor<2x8x5x7xf32>
  %5 = stablehlo.compare LT, %3, %4, FLOAT : (tensor<2x8x5x7xf32>, tensor<2x8x5x7xf32>) -> tensor<2x8x5x7xi1>
  %6 = stablehlo.select %5, %4, %3 : tensor<2x8x5x7xi1>, tensor<2x8x5x7xf32>
  return %6 : tensor<2x8x5x7xf32>
}`,
	// Uniform operands (fuse_exec.go): per-row broadcasts on either side of
	// each op, compares and selects mixing rows and uniform values, a
	// chain of uniform values, a scalar predicate; big enough to run on
	// several goroutines with chunks cut at the broadcasts' runs.
	"uniform": `func.func @main(%x: tensor<3x7x1000xf32>, %s: tensor<3x7xf32>, %b: tensor<1000xf32>, %p: tensor<i1>) -> (tensor<3x7x1000xf32>, tensor<3x7x1000xf32>, tensor<3x7x1000xf32>, tensor<3x7x1000xf32>, tensor<3x7x1000xf32>) {
  %sb = stablehlo.broadcast_in_dim %s, dims = [0, 1] : (tensor<3x7xf32>) -> tensor<3x7x1000xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<1000xf32>) -> tensor<3x7x1000xf32>
  %0 = stablehlo.multiply %x, %sb : tensor<3x7x1000xf32>
  %1 = stablehlo.add %sb, %0 : tensor<3x7x1000xf32>
  %2 = stablehlo.subtract %sb, %1 : tensor<3x7x1000xf32>
  %3 = stablehlo.divide %2, %sb : tensor<3x7x1000xf32>
  %4 = stablehlo.multiply %sb, %3 : tensor<3x7x1000xf32>
  %5 = stablehlo.add %4, %bb : tensor<3x7x1000xf32>
  %z = stablehlo.constant dense<0.0> : tensor<3x7x1000xf32>
  %c = stablehlo.compare GT, %5, %z, FLOAT : (tensor<3x7x1000xf32>, tensor<3x7x1000xf32>) -> tensor<3x7x1000xi1>
  %6 = stablehlo.select %c, %5, %z : tensor<3x7x1000xi1>, tensor<3x7x1000xf32>
  %c2 = stablehlo.compare LE, %6, %sb, FLOAT : (tensor<3x7x1000xf32>, tensor<3x7x1000xf32>) -> tensor<3x7x1000xi1>
  %7 = stablehlo.select %c2, %sb, %6 : tensor<3x7x1000xi1>, tensor<3x7x1000xf32>
  %c3 = stablehlo.compare NE, %x, %sb, FLOAT : (tensor<3x7x1000xf32>, tensor<3x7x1000xf32>) -> tensor<3x7x1000xi1>
  %8 = stablehlo.select %c3, %7, %0 : tensor<3x7x1000xi1>, tensor<3x7x1000xf32>
  %9 = stablehlo.maximum %8, %sb : tensor<3x7x1000xf32>
  %u = stablehlo.add %sb, %sb : tensor<3x7x1000xf32>
  %u2 = stablehlo.multiply %u, %sb : tensor<3x7x1000xf32>
  %u3 = stablehlo.exponential %u2 : tensor<3x7x1000xf32>
  %10 = stablehlo.select %p, %9, %u3 : tensor<i1>, tensor<3x7x1000xf32>
  %11 = stablehlo.compare LT, %sb, %x, FLOAT : (tensor<3x7x1000xf32>, tensor<3x7x1000xf32>) -> tensor<3x7x1000xi1>
  %12 = stablehlo.select %11, %10, %sb : tensor<3x7x1000xi1>, tensor<3x7x1000xf32>
  %13 = stablehlo.convert %11 : (tensor<3x7x1000xi1>) -> tensor<3x7x1000xf32>
  %14 = stablehlo.add %12, %13 : tensor<3x7x1000xf32>
  %c4 = stablehlo.compare GE, %u2, %z, FLOAT : (tensor<3x7x1000xf32>, tensor<3x7x1000xf32>) -> tensor<3x7x1000xi1>
  %15 = stablehlo.select %c4, %u3, %u : tensor<3x7x1000xi1>, tensor<3x7x1000xf32>
  %16 = stablehlo.add %sb, %x : tensor<3x7x1000xf32>
  %17 = stablehlo.multiply %sb, %x : tensor<3x7x1000xf32>
  return %14, %7, %15, %16, %17 : tensor<3x7x1000xf32>, tensor<3x7x1000xf32>, tensor<3x7x1000xf32>, tensor<3x7x1000xf32>, tensor<3x7x1000xf32>
}`,
	// Per-channel runs of 160 elements (chunks cut at each; the channel
	// odometer wraps between batches) and of 6 (too short to cut chunks
	// at: read strided).
	"short_runs": `func.func @main(%x: tensor<3x8x160xf32>, %s: tensor<8xf32>, %y: tensor<5x8x6xf32>, %t: tensor<5x8xf32>) -> (tensor<3x8x160xf32>, tensor<5x8x6xf32>) {
  %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<8xf32>) -> tensor<3x8x160xf32>
  %0 = stablehlo.multiply %x, %sb : tensor<3x8x160xf32>
  %1 = stablehlo.subtract %0, %sb : tensor<3x8x160xf32>
  %z = stablehlo.constant dense<0.0> : tensor<3x8x160xf32>
  %c = stablehlo.compare LT, %1, %z, FLOAT : (tensor<3x8x160xf32>, tensor<3x8x160xf32>) -> tensor<3x8x160xi1>
  %2 = stablehlo.select %c, %z, %1 : tensor<3x8x160xi1>, tensor<3x8x160xf32>
  %tb = stablehlo.broadcast_in_dim %t, dims = [0, 1] : (tensor<5x8xf32>) -> tensor<5x8x6xf32>
  %3 = stablehlo.multiply %y, %tb : tensor<5x8x6xf32>
  %4 = stablehlo.add %3, %tb : tensor<5x8x6xf32>
  return %2, %4 : tensor<3x8x160xf32>, tensor<5x8x6xf32>
}`,
	// Pooling between groups: the fast path's result comes from the arena
	// uncleared (every output is written), on every run.
	"pool": `func.func @main(%x: tensor<1x3x15x17xf32>) -> (tensor<1x3x8x9xf32>, tensor<1x3x14x16xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<1x3x15x17xf32>
  %c = stablehlo.compare LT, %x, %z, FLOAT : (tensor<1x3x15x17xf32>, tensor<1x3x15x17xf32>) -> tensor<1x3x15x17xi1>
  %r = stablehlo.select %c, %z, %x : tensor<1x3x15x17xi1>, tensor<1x3x15x17xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = "stablehlo.reduce_window"(%r, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %mx = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %mx : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1, 3, 3>, window_strides = array<i64: 1, 1, 2, 2>, padding = dense<[[0, 0], [0, 0], [1, 1], [1, 1]]> : tensor<4x2xi64>} : (tensor<1x3x15x17xf32>, tensor<f32>) -> tensor<1x3x8x9xf32>
  %e = stablehlo.exponential %m : tensor<1x3x8x9xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = "stablehlo.reduce_window"(%x, %zero) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %sm = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %sm : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1, 2, 2>} : (tensor<1x3x15x17xf32>, tensor<f32>) -> tensor<1x3x14x16xf32>
  %n = stablehlo.negate %s : tensor<1x3x14x16xf32>
  return %e, %n : tensor<1x3x8x9xf32>, tensor<1x3x14x16xf32>
}`,
	// Transcendentals, transposing broadcast, converts, compares, bool ops,
	// a scalar predicate, max/min with NaNs, several outputs.
	"mixed": `func.func @main(%x: tensor<6x9xf32>, %y: tensor<9x6xf32>, %p: tensor<i1>, %z: tensor<6x9xf64>) -> (tensor<6x9xf32>, tensor<6x9xi1>, tensor<6x9xf64>, tensor<6x9xf32>) {
  %0 = stablehlo.broadcast_in_dim %y, dims = [1, 0] : (tensor<9x6xf32>) -> tensor<6x9xf32>
  %1 = stablehlo.exponential %x : tensor<6x9xf32>
  %2 = stablehlo.maximum %1, %0 : tensor<6x9xf32>
  %3 = stablehlo.tanh %2 : tensor<6x9xf32>
  %4 = stablehlo.minimum %3, %x : tensor<6x9xf32>
  %5 = stablehlo.select %p, %4, %0 : tensor<i1>, tensor<6x9xf32>
  %6 = stablehlo.compare GE, %5, %x, FLOAT : (tensor<6x9xf32>, tensor<6x9xf32>) -> tensor<6x9xi1>
  %7 = stablehlo.compare NE, %x, %0, FLOAT : (tensor<6x9xf32>, tensor<6x9xf32>) -> tensor<6x9xi1>
  %8 = stablehlo.and %6, %7 : tensor<6x9xi1>
  %9 = stablehlo.not %8 : tensor<6x9xi1>
  %10 = stablehlo.convert %5 : (tensor<6x9xf32>) -> tensor<6x9xf64>
  %11 = stablehlo.multiply %10, %z : tensor<6x9xf64>
  %12 = stablehlo.log_plus_one %11 : tensor<6x9xf64>
  %13 = stablehlo.convert %12 : (tensor<6x9xf64>) -> tensor<6x9xf32>
  %14 = stablehlo.divide %13, %x : tensor<6x9xf32>
  %15 = stablehlo.convert %9 : (tensor<6x9xi1>) -> tensor<6x9xf32>
  %16 = stablehlo.subtract %14, %15 : tensor<6x9xf32>
  %17 = stablehlo.rsqrt %16 : tensor<6x9xf32>
  return %5, %9, %12, %17 : tensor<6x9xf32>, tensor<6x9xi1>, tensor<6x9xf64>, tensor<6x9xf32>
}`,
	// A view (reshape) of a value the next group could overwrite in place:
	// the alias is live and returned, so the bytes must be left alone.
	"alias": `func.func @main(%x: tensor<4x6xf32>) -> (tensor<24xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = stablehlo.add %x, %x : tensor<4x6xf32>
  %1 = stablehlo.reshape %0 : (tensor<4x6xf32>) -> tensor<24xf32>
  %2 = stablehlo.negate %0 : tensor<4x6xf32>
  %3 = stablehlo.abs %2 : tensor<4x6xf32>
  %4 = stablehlo.multiply %3, %3 : tensor<4x6xf32>
  %5 = stablehlo.sqrt %4 : tensor<4x6xf32>
  %6 = stablehlo.transpose %5, dims = [0, 1] : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %7 = stablehlo.add %6, %6 : tensor<4x6xf32>
  return %1, %7, %6 : tensor<24xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}`,
	// Kernel outputs dying at a group are overwritten in place, except
	// where a view of them is still live.
	"inplace": `func.func @main(%x: tensor<4x6xf32>) -> (tensor<24xf32>, tensor<4x6xf32>) {
  %0 = stablehlo.reverse %x, dims = [1] : tensor<4x6xf32>
  %1 = stablehlo.exponential %0 : tensor<4x6xf32>
  %2 = stablehlo.reverse %1, dims = [0] : tensor<4x6xf32>
  %3 = stablehlo.add %2, %x : tensor<4x6xf32>
  %4 = stablehlo.reshape %3 : (tensor<4x6xf32>) -> tensor<24xf32>
  %5 = stablehlo.negate %3 : tensor<4x6xf32>
  %6 = stablehlo.reverse %5, dims = [0, 1] : tensor<4x6xf32>
  %7 = stablehlo.multiply %6, %6 : tensor<4x6xf32>
  return %4, %7 : tensor<24xf32>, tensor<4x6xf32>
}`,
	// Broadcasts over several dims, chunks across rows.
	"bcast": `func.func @main(%a: tensor<3x4xf32>, %b: tensor<11xf32>, %c: tensor<4x3xf32>, %d: tensor<1x7x1x1xf32>) -> tensor<3x7x4x11xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 2] : (tensor<3x4xf32>) -> tensor<3x7x4x11xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<11xf32>) -> tensor<3x7x4x11xf32>
  %2 = stablehlo.broadcast_in_dim %c, dims = [2, 0] : (tensor<4x3xf32>) -> tensor<3x7x4x11xf32>
  %3 = stablehlo.broadcast_in_dim %d, dims = [0, 1, 2, 3] : (tensor<1x7x1x1xf32>) -> tensor<3x7x4x11xf32>
  %4 = stablehlo.multiply %0, %1 : tensor<3x7x4x11xf32>
  %5 = stablehlo.subtract %4, %2 : tensor<3x7x4x11xf32>
  %6 = stablehlo.add %5, %3 : tensor<3x7x4x11xf32>
  return %6 : tensor<3x7x4x11xf32>
}`,
	// Softmax and layer norm: reduces over the trailing dim fed by groups
	// (input fusion), one over a leading dim (not fused), max with NaNs;
	// a max over short rows fed by a group (several rows per chunk).
	"norms": `func.func @main(%x: tensor<64x4x33xf32>, %g: tensor<33xf32>) -> (tensor<64x4x33xf32>, tensor<64x4x33xf32>, tensor<4x33xf32>, tensor<64x4xf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %mx = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<64x4x33xf32>, tensor<f32>) -> tensor<64x4xf32>
  %mb = stablehlo.broadcast_in_dim %mx, dims = [0, 1] : (tensor<64x4xf32>) -> tensor<64x4x33xf32>
  %d = stablehlo.subtract %x, %mb : tensor<64x4x33xf32>
  %e = stablehlo.exponential %d : tensor<64x4x33xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<64x4x33xf32>, tensor<f32>) -> tensor<64x4xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0, 1] : (tensor<64x4xf32>) -> tensor<64x4x33xf32>
  %sm = stablehlo.divide %e, %sb : tensor<64x4x33xf32>
  %gb = stablehlo.broadcast_in_dim %g, dims = [2] : (tensor<33xf32>) -> tensor<64x4x33xf32>
  %xg = stablehlo.multiply %x, %gb : tensor<64x4x33xf32>
  %sum = stablehlo.reduce(%xg init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<64x4x33xf32>, tensor<f32>) -> tensor<64x4xf32>
  %n = stablehlo.constant dense<33.0> : tensor<64x4xf32>
  %mean = stablehlo.divide %sum, %n : tensor<64x4xf32>
  %meanb = stablehlo.broadcast_in_dim %mean, dims = [0, 1] : (tensor<64x4xf32>) -> tensor<64x4x33xf32>
  %c = stablehlo.subtract %x, %meanb : tensor<64x4x33xf32>
  %sq = stablehlo.multiply %c, %c : tensor<64x4x33xf32>
  %v = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<64x4x33xf32>, tensor<f32>) -> tensor<64x4xf32>
  %vn = stablehlo.divide %v, %n : tensor<64x4xf32>
  %eps = stablehlo.constant dense<1.0e-5> : tensor<64x4xf32>
  %ve = stablehlo.add %vn, %eps : tensor<64x4xf32>
  %r = stablehlo.rsqrt %ve : tensor<64x4xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0, 1] : (tensor<64x4xf32>) -> tensor<64x4x33xf32>
  %ln = stablehlo.multiply %c, %rb : tensor<64x4x33xf32>
  %ab = stablehlo.abs %x : tensor<64x4x33xf32>
  %lead = stablehlo.reduce(%ab init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<64x4x33xf32>, tensor<f32>) -> tensor<4x33xf32>
  %xq = stablehlo.subtract %x, %gb : tensor<64x4x33xf32>
  %gmx = stablehlo.reduce(%xq init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<64x4x33xf32>, tensor<f32>) -> tensor<64x4xf32>
  return %sm, %ln, %lead, %gmx : tensor<64x4x33xf32>, tensor<64x4x33xf32>, tensor<4x33xf32>, tensor<64x4xf32>
}`,
	// A causal mask built from iotas and constants (evaluated once per
	// plan), applied to an argument; the mask is also returned.
	"mask": `func.func @main(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xi1>) {
  %i = stablehlo.iota dim = 0 : tensor<8x8xi64>
  %j = stablehlo.iota dim = 1 : tensor<8x8xi64>
  %m = stablehlo.compare GE, %i, %j, SIGNED : (tensor<8x8xi64>, tensor<8x8xi64>) -> tensor<8x8xi1>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<8x8xf32>
  %y = stablehlo.select %m, %x, %ninf : tensor<8x8xi1>, tensor<8x8xf32>
  %e = stablehlo.exponential %y : tensor<8x8xf32>
  return %e, %m : tensor<8x8xf32>, tensor<8x8xi1>
}`,
	// Transposes read in place by the group (strided leaves).
	"transpose": `func.func @main(%x: tensor<3x5x7xf32>, %y: tensor<7x3x5xf32>) -> tensor<5x3x7xf32> {
  %0 = stablehlo.transpose %x, dims = [1, 0, 2] : (tensor<3x5x7xf32>) -> tensor<5x3x7xf32>
  %1 = stablehlo.transpose %y, dims = [2, 1, 0] : (tensor<7x3x5xf32>) -> tensor<5x3x7xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<5x3x7xf32>
  %3 = stablehlo.tanh %2 : tensor<5x3x7xf32>
  return %3 : tensor<5x3x7xf32>
}`,
	// Large enough to run on several goroutines; in-place chains.
	"big": `func.func @main(%x: tensor<3x50000xf32>, %c: tensor<50000xf32>) -> (tensor<3x50000xf32>, tensor<3xf32>) {
  %0 = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<50000xf32>) -> tensor<3x50000xf32>
  %1 = stablehlo.subtract %x, %0 : tensor<3x50000xf32>
  %2 = stablehlo.exponential %1 : tensor<3x50000xf32>
  %3 = stablehlo.abs %x : tensor<3x50000xf32>
  %4 = stablehlo.add %2, %3 : tensor<3x50000xf32>
  %5 = stablehlo.sine %4 : tensor<3x50000xf32>
  %6 = stablehlo.multiply %5, %4 : tensor<3x50000xf32>
  %7 = stablehlo.multiply %x, %0 : tensor<3x50000xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %8 = stablehlo.reduce(%7 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<3x50000xf32>, tensor<f32>) -> tensor<3xf32>
  return %6, %8 : tensor<3x50000xf32>, tensor<3xf32>
}`,
	// Values captured by a while body and a reduce fed by elementwise ops.
	// Sums over the dims around the kept ones, fed by a group: bias
	// gradients (float32 converted to float64, leading dims; wide enough
	// to split among threads), batch-norm statistics (dims 0, 2 and 3),
	// a float32 sum with a non-zero init, a sum of every dim (one run:
	// the trailing case) of finite values, batch-norm's variance
	// (squared deviations from a mean per channel), and float64 sums of
	// trailing dims (layer-norm statistics), of finite values and with
	// NaNs, in one chunk and in several.
	"colsums": `func.func @main(%x: tensor<256x130xf32>, %y: tensor<3x5x7x9xf32>, %z: tensor<4x40x16x16xf32>, %w: tensor<4x6x33xf32>, %m: tensor<5xf64>, %v: tensor<3x2500xf32>) -> (tensor<130xf32>, tensor<5xf64>, tensor<40xf64>, tensor<6xf32>, tensor<33xf32>, tensor<f32>, tensor<5xf64>, tensor<3x5x7xf64>, tensor<256xf64>, tensor<3xf64>) {
  %z64 = stablehlo.constant dense<0.0> : tensor<f64>
  %half = stablehlo.constant dense<0.5> : tensor<f32>
  %xc = stablehlo.convert %x : (tensor<256x130xf32>) -> tensor<256x130xf64>
  %xs = stablehlo.reduce(%xc init: %z64) applies stablehlo.add across dimensions = [0] : (tensor<256x130xf64>, tensor<f64>) -> tensor<130xf64>
  %xo = stablehlo.convert %xs : (tensor<130xf64>) -> tensor<130xf32>
  %yc = stablehlo.convert %y : (tensor<3x5x7x9xf32>) -> tensor<3x5x7x9xf64>
  %ys = stablehlo.reduce(%yc init: %z64) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<3x5x7x9xf64>, tensor<f64>) -> tensor<5xf64>
  %zm = stablehlo.multiply %z, %z : tensor<4x40x16x16xf32>
  %zc = stablehlo.convert %zm : (tensor<4x40x16x16xf32>) -> tensor<4x40x16x16xf64>
  %zs = stablehlo.reduce(%zc init: %z64) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<4x40x16x16xf64>, tensor<f64>) -> tensor<40xf64>
  %wm = stablehlo.multiply %w, %w : tensor<4x6x33xf32>
  %ws = stablehlo.reduce(%wm init: %half) applies stablehlo.add across dimensions = [0, 2] : (tensor<4x6x33xf32>, tensor<f32>) -> tensor<6xf32>
  %wa = stablehlo.abs %w : tensor<4x6x33xf32>
  %wl = stablehlo.reduce(%wa init: %half) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x6x33xf32>, tensor<f32>) -> tensor<33xf32>
  %ok = stablehlo.compare EQ, %w, %w : (tensor<4x6x33xf32>, tensor<4x6x33xf32>) -> tensor<4x6x33xi1>
  %zs33 = stablehlo.constant dense<0.0> : tensor<4x6x33xf32>
  %lim = stablehlo.constant dense<10.0> : tensor<4x6x33xf32>
  %wf = stablehlo.select %ok, %w, %zs33 : tensor<4x6x33xi1>, tensor<4x6x33xf32>
  %nlim = stablehlo.constant dense<-10.0> : tensor<4x6x33xf32>
  %wu = stablehlo.minimum %wf, %lim : tensor<4x6x33xf32>
  %wn = stablehlo.maximum %wu, %nlim : tensor<4x6x33xf32>
  %wt = stablehlo.reduce(%wn init: %half) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x6x33xf32>, tensor<f32>) -> tensor<f32>
  %yok = stablehlo.compare EQ, %y, %y : (tensor<3x5x7x9xf32>, tensor<3x5x7x9xf32>) -> tensor<3x5x7x9xi1>
  %y0 = stablehlo.constant dense<0.0> : tensor<3x5x7x9xf32>
  %ylo = stablehlo.constant dense<-10.0> : tensor<3x5x7x9xf32>
  %yhi = stablehlo.constant dense<10.0> : tensor<3x5x7x9xf32>
  %ysel = stablehlo.select %yok, %y, %y0 : tensor<3x5x7x9xi1>, tensor<3x5x7x9xf32>
  %ymin = stablehlo.minimum %ysel, %yhi : tensor<3x5x7x9xf32>
  %yfin = stablehlo.maximum %ymin, %ylo : tensor<3x5x7x9xf32>
  %yc2 = stablehlo.convert %yfin : (tensor<3x5x7x9xf32>) -> tensor<3x5x7x9xf64>
  %xc2 = stablehlo.convert %x : (tensor<256x130xf32>) -> tensor<256x130xf64>
  %mb = stablehlo.broadcast_in_dim %m, dims = [1] : (tensor<5xf64>) -> tensor<3x5x7x9xf64>
  %yd = stablehlo.subtract %yc2, %mb : tensor<3x5x7x9xf64>
  %ysq = stablehlo.multiply %yd, %yd : tensor<3x5x7x9xf64>
  %yv = stablehlo.reduce(%ysq init: %z64) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<3x5x7x9xf64>, tensor<f64>) -> tensor<5xf64>
  %yc3 = stablehlo.convert %yfin : (tensor<3x5x7x9xf32>) -> tensor<3x5x7x9xf64>
  %yr = stablehlo.reduce(%yc3 init: %z64) applies stablehlo.add across dimensions = [3] : (tensor<3x5x7x9xf64>, tensor<f64>) -> tensor<3x5x7xf64>
  %xr = stablehlo.reduce(%xc2 init: %z64) applies stablehlo.add across dimensions = [1] : (tensor<256x130xf64>, tensor<f64>) -> tensor<256xf64>
  %vok = stablehlo.compare EQ, %v, %v : (tensor<3x2500xf32>, tensor<3x2500xf32>) -> tensor<3x2500xi1>
  %v0 = stablehlo.constant dense<0.0> : tensor<3x2500xf32>
  %vlo = stablehlo.constant dense<-10.0> : tensor<3x2500xf32>
  %vhi = stablehlo.constant dense<10.0> : tensor<3x2500xf32>
  %vsel = stablehlo.select %vok, %v, %v0 : tensor<3x2500xi1>, tensor<3x2500xf32>
  %vmin = stablehlo.minimum %vsel, %vhi : tensor<3x2500xf32>
  %vfin = stablehlo.maximum %vmin, %vlo : tensor<3x2500xf32>
  %vc = stablehlo.convert %vfin : (tensor<3x2500xf32>) -> tensor<3x2500xf64>
  %vr = stablehlo.reduce(%vc init: %z64) applies stablehlo.add across dimensions = [1] : (tensor<3x2500xf64>, tensor<f64>) -> tensor<3xf64>
  return %xo, %ys, %zs, %ws, %wl, %wt, %yv, %yr, %xr, %vr : tensor<130xf32>, tensor<5xf64>, tensor<40xf64>, tensor<6xf32>, tensor<33xf32>, tensor<f32>, tensor<5xf64>, tensor<3x5x7xf64>, tensor<256xf64>, tensor<3xf64>
}`,
	"regions": `func.func @main(%x: tensor<5x4xf32>) -> (tensor<5x4xf32>, tensor<5xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c3 = stablehlo.constant dense<3> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %k = stablehlo.constant dense<0.5> : tensor<5x4xf32>
  %e = stablehlo.exponential %x : tensor<5x4xf32>
  %w:2 = stablehlo.while(%i = %c0, %a = %x) : tensor<i64>, tensor<5x4xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %c3 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %n = stablehlo.add %i, %c1 : tensor<i64>
    %m = stablehlo.multiply %a, %k : tensor<5x4xf32>
    %s = stablehlo.add %m, %e : tensor<5x4xf32>
    stablehlo.return %n, %s : tensor<i64>, tensor<5x4xf32>
  }
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %q = stablehlo.multiply %w#1, %w#1 : tensor<5x4xf32>
  %r = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [1] : (tensor<5x4xf32>, tensor<f32>) -> tensor<5xf32>
  return %w#1, %r : tensor<5x4xf32>, tensor<5xf32>
}`,
}
