// Package eager is the runtime of the eager tpu device: PyTorch's
// PrivateUse1 kernels (python/torchtpu/csrc, through the C ABI of package
// capi) send it every aten op one call at a time, and it keeps the
// tensors' data in device buffers between calls. It is distinct from a
// compiled Program (package runtime), which it uses to compile and count
// its modules.
//
// What it holds, one concern per file:
//
//   - the queue (queue.go): the device's stream, one worker goroutine
//     running tasks in order while the caller goes on dispatching; events
//     mark points in it, and a synchronisation returns the first failure
//     of a task that ran asynchronously, naming its op. A read waits for
//     the last task touching its buffer only (Buffer.useq): a training
//     step's loss.item() does not wait for the optimizer's ops queued
//     after the loss, and returns the failures of the tasks finished by
//     then (a later one's surfaces at the next synchronisation);
//   - ops (op.go): an op interned once by overload name and PyTorch's
//     schema, resolved to the registry entry computing it (in-place and
//     out= overloads by their functional entry);
//   - argument words (args.go): a call's arguments as PyTorch's boxed
//     stack gives them, decoded into values and a signature key (op,
//     tensors' dtypes and sizes, other arguments' values);
//   - plans (plan.go, run.go, oprun.go): what one signature lowers and
//     compiles to, cached by its key, so that a repeated call only runs
//     an executable; run.go launches a plan's run on the queue and writes
//     the returns, oprun.go is the queued run. An argument that reads a
//     whole buffer through its .t() goes in as the buffer, transposed in
//     the module (plan_transposed.go), not gathered;
//   - memory (pool.go): the results of fused blocks and the large ones of
//     single ops are computed into memory the device recycles from the
//     buffers in-place updates replace, instead of fresh memory each run;
//   - fused blocks (fused.go): in fused mode ops are recorded and lowered
//     together into one module at a flush, cached by the block's
//     structure, so a training loop compiles once; a block that repeats
//     the one recorded after the same predecessor is checked call by
//     call against it and replayed (replay.go): no signature key, plan
//     lookup or structure key per call;
//   - buffers and views (buffer.go, view.go): untyped storages and
//     PyTorch's views of them (dtype, offset, sizes, strides), with reads
//     gathering and writes scattering through a view, so that aliases see
//     each other's writes;
//   - modes and options (device.go): async (the default; ops queued),
//     debug (each op run and checked before its call returns) and fused;
//   - compiled programs (program.go): a torch.compile graph whose tensors
//     live on the device runs as one task on its buffers, its outputs new
//     buffers;
//   - profiling (profile.go): each task's device time and the caller's
//     correlation tag, for PyTorch's profiler.
//
// The device names buffers to its caller by handles from a table it does
// not own (Host): the C ABI keeps handles, tensor descriptors and the
// guard that turns panics into errors; this package keeps the runtime.
// It has no cgo and is tested without one.
//
// It sits above runtime, backend and aten and below capi (imports point
// one way). It is a top-level package beside runtime rather than inside
// it because it is a layer above runtime, and a home for what the device
// grows next (distributed).
package eager
