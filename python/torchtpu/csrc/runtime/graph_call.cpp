// Compiled graphs on CPU tensors, called the short way: python/torchtpu's
// EngineGraph binds a call of its program once (tt_program_bind, the
// Python side's FastCall) and describes here what a call does around the
// engine's run: which inputs' layouts to check, the outputs to allocate in
// their recorded layouts, and the outputs made afterwards as views of the
// inputs or of other outputs (as_strided of a recorded size, stride and
// offset). Each call then costs a few hundred nanoseconds per tensor
// instead of the microseconds per tensor of the same steps in Python
// (GPT-2's training step: 158 outputs and 158 inputs in its two graphs,
// 64 views).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "runtime/abi.h"

namespace torchtpu {
namespace {

struct Layout {
  std::vector<int64_t> shape, strides;
};

struct OutSpec {
  bool none = true;  // skipped: the engine writes nothing, the call returns None or a view made after
  at::ScalarType dtype = at::kFloat;
  Layout layout;
};

// An output made after the run: from input src (kInput), the engine's
// output src as it came back (kRaw) or the call's output src as finished
// so far (kOut); as that tensor itself (identity) or its as_strided view.
enum Src : int64_t { kInput = 0, kRaw = 1, kOut = 2 };

struct View {
  int64_t out = 0, src_kind = 0, src = 0;
  bool identity = false;
  Layout layout;
  int64_t offset = 0;  // added to the source's storage offset
};

struct GraphCall {
  uint64_t bound = 0;
  int64_t n_in = 0, n_out = 0;
  bool check = false;             // compare each input's layout with layouts[i] first
  std::vector<Layout> layouts;  // per input, when check
  std::vector<OutSpec> outs;
  std::vector<View> views;  // in order
};

// extent returns the bytes t's storage holds from t's data pointer on.
int64_t extent(const at::Tensor& t) {
  return int64_t(t.storage().nbytes()) - t.storage_offset() * int64_t(t.itemsize());
}

// within reports whether a view of s's storage of layout l at element
// offset off addresses only elements the storage holds.
bool within(const at::Tensor& s, const Layout& l, int64_t off) {
  if (!s.has_storage() || off < 0 || l.shape.size() != l.strides.size()) return false;
  int64_t lo = off, hi = off;
  for (size_t d = 0; d < l.shape.size(); d++) {
    if (l.shape[d] < 0) return false;
    if (l.shape[d] == 0) return true;  // no element
    int64_t span = (l.shape[d] - 1) * l.strides[d];
    if (span < 0) {
      lo += span;
    } else {
      hi += span;
    }
  }
  return lo >= 0 && (hi + 1) * int64_t(s.itemsize()) <= int64_t(s.storage().nbytes());
}

std::mutex calls_mu;
std::unordered_map<int64_t, std::shared_ptr<const GraphCall>> calls;
int64_t next_id = 1;

// Cursor reads the plan's words.
struct Cursor {
  c10::IntArrayRef w;
  size_t pos = 0;
  int64_t next() {
    TORCH_CHECK(pos < w.size(), "torchtpu: a graph call's plan ends early (word ", pos, ")");
    return w[pos++];
  }
  Layout layout() {
    int64_t nd = next();
    TORCH_CHECK(nd >= 0 && nd <= 64, "torchtpu: a graph call's plan has a tensor of ", nd, " dims");
    Layout l;
    for (int64_t d = 0; d < nd; d++) l.shape.push_back(next());
    for (int64_t d = 0; d < nd; d++) l.strides.push_back(next());
    return l;
  }
};

// graph_call_bind reads a plan (EngineGraph._bind_graph_call in
// python/torchtpu/_graph.py writes it) and returns the call's id. The
// plan's words: the bound call's handle, the numbers of inputs and
// outputs, whether to check the inputs' layouts; then each input's layout
// when checked (ndim, sizes, strides); each output's: 0 for none, or 1
// and its layout; the number of views and each view's output, source kind
// and index, 1 for the source itself or 0 and its layout and offset.
// dtypes holds one tensor per output, of the output's dtype.
int64_t graph_call_bind(c10::IntArrayRef plan, at::TensorList dtypes) {
  auto c = std::make_shared<GraphCall>();
  Cursor r{plan};
  c->bound = uint64_t(r.next());
  c->n_in = r.next();
  c->n_out = r.next();
  c->check = r.next() != 0;
  TORCH_CHECK(c->n_in >= 0 && c->n_out >= 0 && int64_t(dtypes.size()) == c->n_out,
              "torchtpu: a graph call's plan has ", c->n_in, " inputs and ", c->n_out, " outputs, ", dtypes.size(),
              " dtypes given");
  for (int64_t i = 0; c->check && i < c->n_in; i++) c->layouts.push_back(r.layout());
  for (int64_t i = 0; i < c->n_out; i++) {
    OutSpec o;
    o.none = r.next() == 0;
    if (!o.none) {
      o.dtype = dtypes[size_t(i)].scalar_type();
      o.layout = r.layout();
    }
    c->outs.push_back(std::move(o));
  }
  int64_t nv = r.next();
  for (int64_t k = 0; k < nv; k++) {
    View v;
    v.out = r.next();
    v.src_kind = r.next();
    v.src = r.next();
    v.identity = r.next() != 0;
    if (!v.identity) {
      v.layout = r.layout();
      v.offset = r.next();
    }
    int64_t lim = v.src_kind == kInput ? c->n_in : c->n_out;
    TORCH_CHECK(v.out >= 0 && v.out < c->n_out && v.src >= 0 && v.src < lim && v.src_kind >= kInput &&
                    v.src_kind <= kOut,
                "torchtpu: a graph call's plan has a bad view (output ", v.out, ")");
    c->views.push_back(std::move(v));
  }
  TORCH_CHECK(r.pos == plan.size(), "torchtpu: a graph call's plan has ", plan.size() - r.pos, " words left over");
  std::lock_guard<std::mutex> g(calls_mu);
  int64_t id = next_id++;
  calls[id] = std::move(c);
  return id;
}

void graph_call_free(int64_t id) {
  std::lock_guard<std::mutex> g(calls_mu);
  calls.erase(id);
}

// graph_call runs call id on inputs; it returns the outputs (undefined for
// None), or nothing when an input's layout is not the bound one (the
// caller then runs the program the general way).
std::vector<at::Tensor> graph_call(int64_t id, at::TensorList inputs) {
  std::shared_ptr<const GraphCall> c;
  {
    std::lock_guard<std::mutex> g(calls_mu);
    auto it = calls.find(id);
    TORCH_CHECK(it != calls.end(), "torchtpu: no graph call ", id);
    c = it->second;
  }
  TORCH_CHECK(abi_ready() && abi.bound_run, "torchtpu: the engine library is not bound to the extension");
  TORCH_CHECK(int64_t(inputs.size()) == c->n_in, "torchtpu: the program takes ", c->n_in, " tensors, ",
              inputs.size(), " given");
  if (c->check) {
    for (int64_t i = 0; i < c->n_in; i++) {
      const at::Tensor& t = inputs[size_t(i)];
      const Layout& l = c->layouts[size_t(i)];
      if (t.sizes() != c10::IntArrayRef(l.shape) || t.strides() != c10::IntArrayRef(l.strides)) return {};
    }
  }
  // Extents are the bytes each tensor's storage holds from its data
  // pointer on, never the plan's word: the engine checks every tensor's
  // layout against them, so a plan that disagrees with the bound call is
  // an error, not a write past an allocation.
  std::vector<void*> in_data(size_t(std::max<int64_t>(c->n_in, 1)));
  std::vector<int64_t> in_ext(in_data.size());
  for (int64_t i = 0; i < c->n_in; i++) {
    const at::Tensor& t = inputs[size_t(i)];
    TORCH_CHECK(t.defined() && t.device().is_cpu() && t.has_storage(), "torchtpu: input ", i,
                " of a compiled graph is not a CPU tensor");
    in_data[size_t(i)] = t.data_ptr();
    in_ext[size_t(i)] = extent(t);
  }
  std::vector<at::Tensor> outs(size_t(c->n_out));
  std::vector<void*> out_data(size_t(std::max<int64_t>(c->n_out, 1)));
  std::vector<int64_t> out_ext(out_data.size());
  for (int64_t i = 0; i < c->n_out; i++) {
    const OutSpec& o = c->outs[size_t(i)];
    if (o.none) continue;
    outs[size_t(i)] = at::empty_strided(o.layout.shape, o.layout.strides, at::TensorOptions().dtype(o.dtype));
    out_data[size_t(i)] = outs[size_t(i)].data_ptr();
    out_ext[size_t(i)] = extent(outs[size_t(i)]);
  }
  char* err = nullptr;
  int32_t rc = abi.bound_run(c->bound, in_data.data(), in_ext.data(), out_data.data(), out_ext.data(), &err);
  check(rc, err, "tt_bound_run");
  if (!c->views.empty()) {
    std::vector<at::Tensor> raw(outs);
    for (const View& v : c->views) {
      const at::Tensor& s = v.src_kind == kInput ? inputs[size_t(v.src)]
                            : v.src_kind == kRaw ? raw[size_t(v.src)]
                                                 : outs[size_t(v.src)];
      TORCH_CHECK(s.defined(), "torchtpu: output ", v.out, " views a None output");
      if (v.identity) {
        outs[size_t(v.out)] = s;
        continue;
      }
      int64_t off = s.storage_offset() + v.offset;
      TORCH_CHECK(within(s, v.layout, off), "torchtpu: output ", v.out, " of a compiled graph would view bytes outside ",
                  "the storage of the tensor it views");
      outs[size_t(v.out)] = s.as_strided(v.layout.shape, v.layout.strides, off);
    }
  }
  return outs;
}

}  // namespace
}  // namespace torchtpu

TORCH_LIBRARY_FRAGMENT(torchtpu, m) {
  m.def("_graph_call_bind(int[] plan, Tensor[] dtypes) -> int", TORCH_FN(torchtpu::graph_call_bind));
  m.def("_graph_call_free(int id) -> ()", TORCH_FN(torchtpu::graph_call_free));
  m.def("_graph_call(int id, Tensor[] inputs) -> Tensor[]", TORCH_FN(torchtpu::graph_call));
}
