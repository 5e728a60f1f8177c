// Compiled graphs on the tpu device: a torch.compile graph whose inputs
// live on tpu runs as one engine program on the device's buffers (read in
// place), and its outputs are new tpu tensors over the engine's new
// buffers. python/torchtpu/_device_graph.py calls it.
#include <torch/library.h>

#include "runtime/device.h"

namespace torchtpu {
namespace {

// run_program runs engine program `program` (a handle of the C ABI's
// table) on inputs, which has `outputs` outputs; an undefined tensor
// stands for a None output.
std::vector<at::Tensor> run_program(int64_t program, int64_t outputs, at::TensorList inputs) {
  static thread_local std::vector<int64_t> words;
  static thread_local std::vector<int64_t> out;
  words.clear();
  for (size_t i = 0; i < inputs.size(); i++) {
    try {
      put_any_tensor(words, inputs[i]);
    } catch (const Unsupported& e) {
      TORCH_CHECK(false, "torchtpu: input ", i, " of a compiled graph on the tpu device is ", e.what());
    }
  }
  out.resize(size_t(std::max<int64_t>(outputs, 1)) * (4 + 16));
  int32_t n = 0;
  char* err = nullptr;
  int64_t rc = abi.program_run_device(uint64_t(program), words.data(), int32_t(words.size()), out.data(),
                                      int32_t(out.size()), &n, &err);
  check(rc, err, "tt_program_run_device");
  std::vector<at::Tensor> res;
  res.reserve(size_t(outputs));
  Reader r{out.data(), n};
  while (r.pos < n) {
    int64_t kind = r.next();
    if (kind == kRetNone) {
      res.emplace_back();
    } else {
      TORCH_CHECK(kind == kRetNew, "torchtpu: return kind ", kind, " from a compiled program");
      res.push_back(r.tensor());
    }
  }
  TORCH_CHECK(int64_t(res.size()) == outputs, "torchtpu: the compiled program returned ", res.size(),
              " outputs, want ", outputs);
  return res;
}

}  // namespace
}  // namespace torchtpu

TORCH_LIBRARY_FRAGMENT(torchtpu, m) {
  m.def("_run_program(int program, int outputs, Tensor[] inputs) -> Tensor[]", TORCH_FN(torchtpu::run_program));
}
