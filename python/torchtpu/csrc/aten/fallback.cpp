// The boxed fallback of the tpu device: every aten op without a C++ kernel
// of its own (aten/kernels.cpp) arrives here with PyTorch's boxed stack.
//
//  - A view op (its first return aliases its first argument) is computed
//    with PyTorch's meta kernel on a meta twin of the input, and the result
//    made a view of the input's storage: aliasing is PyTorch's own.
//  - A random op (it takes a Generator, or is tagged nondeterministic_seeded) runs on PyTorch's CPU kernel with
//    the CPU generator: the same numbers as on CPU.
//  - Any other op goes to the engine: its arguments are encoded as words
//    and the engine runs it from a plan cached by signature. A new
//    signature is first checked with PyTorch's meta kernel (PyTorch's own
//    error messages for bad shapes and dtypes; the engine's result dtypes
//    and shapes are compared with PyTorch's before anything runs).
//  - An op the engine declines runs on PyTorch's CPU kernel (counted and
//    warned once per op) or raises, per the fallback policy.
#include <ATen/native/CPUFallback.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>

#include "aten/aten.h"

namespace torchtpu {

namespace {

enum class Kind { Engine, View, Random };


struct OpInfo {
  std::string name;  // aten::add.Tensor
  Kind kind = Kind::Engine;
  // a multi-tensor op (_foreach_*): what the engine declines runs on
  // PyTorch's composite kernel (one op per tensor), not on the CPU
  bool foreach = false;
  int32_t id = -1;  // the engine's number
  std::vector<IntKind> ints;
  std::atomic<int64_t> cpu_calls{0};
  std::atomic<bool> warned{false};
  std::string reason;  // of the last decline
};

std::mutex ops_mu;
std::unordered_map<const c10::FunctionSchema*, OpInfo*> ops;
std::atomic<bool> cpu_fallback_on{true};
std::atomic<int64_t> cpu_calls_total{0};  // ops run on the CPU by the fallback policy (not random ops)


bool is_generator(const c10::TypePtr& t) {
  auto k = t->kind();
  if (k == c10::TypeKind::OptionalType) k = t->castRaw<c10::OptionalType>()->getElementType()->kind();
  return k == c10::TypeKind::GeneratorType;
}

std::string op_name(const c10::FunctionSchema& s) {
  std::string n = s.name();
  n += ".";
  n += s.overload_name().empty() ? "default" : s.overload_name();
  return n;
}

OpInfo& info(const c10::OperatorHandle& op) {
  const auto* key = &op.schema();
  std::lock_guard<std::mutex> lock(ops_mu);
  auto it = ops.find(key);
  if (it != ops.end()) return *it->second;
  const auto& s = op.schema();
  auto* in = new OpInfo();
  in->name = op_name(s);
  in->foreach = in->name.rfind("aten::_foreach_", 0) == 0 &&
                op.hasKernelForDispatchKey(c10::DispatchKey::CompositeExplicitAutograd);
  for (const auto& a : s.arguments()) {
    IntKind k = int_kind(a.real_type());
    // the numbers an optimizer changes (step sizes, decays, weights); a
    // norm's ord or a power's exponent stays part of the signature
    static const std::set<std::string> values{"scalar", "scalars", "alpha", "value", "weight"};
    if (in->foreach && values.count(a.name())) {
      auto t = a.real_type();
      if (t->kind() == c10::TypeKind::NumberType) k = IntKind::Number;
      if (t->kind() == c10::TypeKind::ListType &&
          t->castRaw<c10::ListType>()->getElementType()->kind() == c10::TypeKind::NumberType)
        k = IntKind::Numbers;
    }
    in->ints.push_back(k);
    if (is_generator(a.type())) in->kind = Kind::Random;
  }
  // Ops that draw from the default generator without taking one
  // (native_dropout, rand.default, ...) carry this tag: they too run on the
  // CPU kernel, so a seeded program draws the same numbers as on CPU.
  if (op.hasTag(at::Tag::nondeterministic_seeded)) in->kind = Kind::Random;
  const auto& rets = s.returns();
  if (in->kind == Kind::Engine && !rets.empty() && rets[0].alias_info() && !rets[0].alias_info()->isWrite() &&
      !s.arguments().empty() && s.arguments()[0].alias_info() && !s.arguments()[0].alias_info()->isWrite()) {
    in->kind = Kind::View;
  }
  if (in->kind == Kind::Engine) {
    std::ostringstream text;
    text << s;
    char* err = nullptr;
    in->id = abi.op_id(in->name.c_str(), text.str().c_str(), &err);
    if (in->id < 0) {
      in->reason = err ? err : "tt_op_id failed";
      if (err) abi.string_free(err);
    }
  }
  ops[key] = in;
  return *in;
}

// ---- the paths ---------------------------------------------------------------

thread_local std::vector<int64_t> words;
thread_local std::vector<int64_t> out(1 << 12);

void cpu(const c10::OperatorHandle& op, torch::jit::Stack* stack, OpInfo& in, const std::string& why) {
  if (in.kind != Kind::Random) {
    TORCH_CHECK(cpu_fallback_on.load(), "torchtpu: ", in.name, " cannot run on the tpu device (", why,
                ") and the fallback policy is \"error\"");
    if (!in.warned.exchange(true)) {
      TORCH_WARN("torchtpu: ", in.name, " runs on the CPU (", why,
                 "); each call moves its tensors to the CPU and back. torchtpu.report() lists such ops.");
    }
  }
  in.cpu_calls.fetch_add(1);
  if (in.kind != Kind::Random) cpu_calls_total.fetch_add(1);
  {
    std::lock_guard<std::mutex> lock(ops_mu);
    in.reason = why;
  }
  at::native::cpu_fallback(op, stack);
}

// composite runs a multi-tensor op the engine declines as a device without
// its own kernel would: PyTorch's composite kernel, one single-tensor op
// per item, each of which comes back to the device (PrivateUse3's entry is
// that kernel, as no backend registers one there).
void composite(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::PrivateUse3), stack);
}

at::Tensor meta_twin(const at::Tensor& t) {
  if (!t.defined() || t.device().type() != kTPU) return t;
  int64_t need = t.storage_offset() + 1;
  for (int64_t d = 0; d < t.dim(); d++) need += (t.size(d) - 1) * t.stride(d);
  if (t.numel() == 0) need = t.storage_offset();
  int64_t have = int64_t(t.storage().nbytes() / t.element_size());
  auto base = at::empty({std::max(need, have)}, t.options().device(at::kMeta));
  return base.as_strided(t.sizes(), t.strides(), t.storage_offset());
}

c10::IValue meta_value(const c10::IValue& v) {
  if (v.isTensor()) return meta_twin(v.toTensor());
  // a factory's device: the meta call must not come back to the tpu device
  if (v.isDevice() && v.toDevice().type() == kTPU) return c10::Device(c10::kMeta);
  if (v.isTensorList()) {
    c10::List<at::Tensor> l;
    for (const at::Tensor& t : v.toTensorList()) l.push_back(meta_twin(t));
    return l;
  }
  if (v.isList()) {
    auto src = v.toList();
    c10::impl::GenericList l(src.elementType());
    for (const c10::IValue& e : src) l.push_back(meta_value(e));
    return l;
  }
  return v;
}

// meta_check runs op on meta twins of the arguments: PyTorch raises its own
// error for a bad call. It returns false when there is no meta kernel.
thread_local int meta_depth = 0;

bool meta_check(const c10::OperatorHandle& op, const std::vector<c10::IValue>& args, torch::jit::Stack* outs) {
  // A meta call that reaches the tpu device again (an argument this code
  // does not turn into meta) gets no check rather than endless recursion.
  if (meta_depth > 0) return false;
  struct Depth {
    Depth() { meta_depth++; }
    ~Depth() { meta_depth--; }
  } depth;
  torch::jit::Stack ms;
  ms.reserve(args.size());
  for (const auto& a : args) ms.push_back(meta_value(a));
  try {
    // A structured op's functional or in-place form registered straight to
    // the device (ttx_register_direct) is checked through PyTorch's own
    // composite kernel, as a device without its own kernel would run it:
    // its meta computation raises PyTorch's CPU messages (the Meta key may
    // hold a Python meta function with other wording). PrivateUse3's
    // dispatch entry is that composite kernel.
    static const auto composite = c10::DispatchKeySet(c10::DispatchKey::PrivateUse3);
    if (op.hasKernelForDispatchKey(c10::DispatchKey::CompositeExplicitAutogradNonFunctional)) {
      op.redispatchBoxed(composite, &ms);
    } else {
      op.callBoxed(&ms);
    }
  } catch (const c10::NotImplementedError&) {
    return false;
  } catch (const std::exception& e) {
    // No meta kernel, or one for data-dependent shapes that declines (a
    // Python meta function's error arrives as another exception type): no
    // check, the engine decides. Any other error is PyTorch's verdict.
    std::string m = e.what();
    if (m.find("eta") != std::string::npos || m.find("fake") != std::string::npos ||
        m.find("data-dependent") != std::string::npos || m.find("NotImplementedError") != std::string::npos)
      return false;
    throw;
  }
  *outs = std::move(ms);
  return true;
}

// expect writes what PyTorch's meta kernel returned, for the engine to
// compare with its plan: [n, (dtype ndim sizes...)×n] over the tensors.
void expect(const torch::jit::Stack& outs, std::vector<int64_t>& w) {
  w.clear();
  w.push_back(0);
  auto add = [&](const at::Tensor& t) {
    if (!t.defined()) return;
    w[0]++;
    w.push_back(int64_t(t.scalar_type()));
    w.push_back(t.dim());
    for (auto s : t.sizes()) w.push_back(s);
  };
  for (const auto& v : outs) {
    if (v.isTensor()) add(v.toTensor());
    if (v.isTensorList())
      for (const at::Tensor& t : v.toTensorList()) add(t);
  }
}

void view(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& s = op.schema();
  size_t n = s.arguments().size();
  std::vector<c10::IValue> args(stack->end() - n, stack->end());
  torch::jit::drop(*stack, n);
  at::Tensor base = args[0].toTensor();
  torch::jit::Stack ms;
  for (const auto& a : args) ms.push_back(meta_value(a));
  op.callBoxed(&ms);
  auto make = [&](const at::Tensor& m) {
    if (!m.defined()) return m;
    at::Tensor v = at::detail::make_tensor<c10::TensorImpl>(c10::TensorImpl::VIEW, c10::Storage(base.storage()),
                                                            base.key_set(), m.dtype());
    v.unsafeGetTensorImpl()->set_sizes_and_strides(m.sizes(), m.strides(), m.storage_offset());
    return v;
  };
  for (auto& r : ms) {
    if (r.isTensor()) {
      stack->push_back(make(r.toTensor()));
    } else if (r.isTensorList()) {
      c10::List<at::Tensor> l;
      for (const at::Tensor& t : r.toTensorList()) l.push_back(make(t));
      stack->push_back(l);
    } else {
      stack->push_back(r);
    }
  }
}

}  // namespace

void set_cpu_fallback(bool on) { cpu_fallback_on.store(on); }
bool cpu_fallback_enabled() { return cpu_fallback_on.load(); }

// resolved returns the values a tpu tensor with conjugate or negative bits
// stands for (a lazy x.conj() or a negated view, which conj-aware ops such
// as mm and addmm receive as is), as a tensor without them: the engine
// reads storage, not bits.
at::Tensor resolved(const at::Tensor& t) {
  at::Tensor v = t;
  if (v.is_conj()) v = at::_conj_physical(v._conj());
  if (v.is_neg()) v = at::neg(v._neg_view());
  return v;
}

void run_op(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  OpInfo& in = info(op);
  if (in.id < 0) return cpu(op, stack, in, in.reason);
  const auto& s = op.schema();
  size_t nargs = s.arguments().size();
  for (size_t i = 0; i < nargs; i++) {
    c10::IValue& v = (*stack)[stack->size() - nargs + i];
    if (!v.isTensor()) continue;
    const at::Tensor& t = v.toTensor();
    if (!t.defined() || t.device().type() != kTPU || (!t.is_conj() && !t.is_neg())) continue;
    const auto& ai = s.arguments()[i].alias_info();
    if (ai && ai->isWrite()) return cpu(op, stack, in, "writes through a conjugate or negative view");
    v = resolved(t);
  }
  auto& w = words;
  w.clear();
  try {
    auto args = torch::jit::last(*stack, nargs);
    for (size_t i = 0; i < nargs; i++) put(w, args[i], in.ints[i]);
  } catch (const Unsupported& e) {
    if (in.foreach) return composite(op, stack);
    return cpu(op, stack, in, std::string("takes ") + e.what());
  }
  int64_t flags = 0;
  for (int attempt = 0;; attempt++) {
    TORCH_CHECK(attempt < 8, "torchtpu: ", in.name, ": the engine keeps asking to resize");
    int32_t nout = 0;
    char* err = nullptr;
    int32_t st = abi.op_call(in.id, w.data(), int32_t(w.size()), flags, out.data(), int32_t(out.size()), &nout, &err);
    if (st == kOK) {
      std::vector<c10::IValue> args(stack->end() - nargs, stack->end());
      torch::jit::drop(*stack, nargs);
      Reader r{out.data(), nout};
      for (size_t j = 0; j < s.returns().size(); j++) {
        int64_t kind = r.next();
        if (kind == kRetNew) {
          stack->push_back(r.tensor());
        } else if (kind == kRetAlias) {
          int64_t k = r.next();
          TORCH_CHECK(k >= 0 && size_t(k) < args.size(), "torchtpu: bad alias in the engine's returns");
          stack->push_back(args[size_t(k)]);
        } else if (kind == kRetList) {
          int64_t cnt = r.next();
          c10::List<at::Tensor> l;
          for (int64_t k = 0; k < cnt; k++) {
            TORCH_CHECK(r.next() == kRetNew, "torchtpu: bad list item in the engine's returns");
            l.push_back(r.tensor());
          }
          stack->push_back(l);
        } else {
          stack->push_back(at::Tensor());
        }
      }
      return;
    }
    if (st == kMiss) {
      std::vector<c10::IValue> args(stack->end() - nargs, stack->end());
      torch::jit::Stack metas;
      std::vector<int64_t> exp;
      if (meta_check(op, args, &metas)) {
        expect(metas, exp);
        TORCH_CHECK(exp.size() <= out.size(), "torchtpu: too many returns");
        std::copy(exp.begin(), exp.end(), out.begin());
        flags = 3;  // compile, and compare with the expectation in out
      } else {
        flags = 1;
      }
      continue;
    }
    if (st == kResize) {
      Reader r{out.data(), nout};
      int64_t cnt = r.next();
      auto args = torch::jit::last(*stack, nargs);
      for (int64_t k = 0; k < cnt; k++) {
        int64_t arg = r.next(), nd = r.next();
        std::vector<int64_t> shape;
        for (int64_t d = 0; d < nd; d++) shape.push_back(r.next());
        TORCH_CHECK(arg >= 0 && size_t(arg) < nargs && args[size_t(arg)].isTensor(), "torchtpu: bad resize");
        at::native::resize_output(args[size_t(arg)].toTensor(), shape);
      }
      w.clear();
      for (size_t i = 0; i < nargs; i++) put(w, args[i], in.ints[i]);
      flags = 0;
      continue;
    }
    if (st == kDecline) {
      std::string why = err ? err : "declined";
      if (err) abi.string_free(err);
      if (in.foreach) return composite(op, stack);
      return cpu(op, stack, in, why);
    }
    check(-1, err, "tt_op_call");
  }
}

void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  OpInfo& in = info(op);
  switch (in.kind) {
    case Kind::View:
      return view(op, stack);
    case Kind::Random:
      return cpu(op, stack, in, "random op: PyTorch's CPU generator");
    default:
      return run_op(op, stack);
  }
}

}  // namespace torchtpu

extern "C" {

// ttx_set_cpu_fallback sets the fallback policy (1: CPU, 0: raise).
__attribute__((visibility("default"))) void ttx_set_cpu_fallback(int on) { torchtpu::set_cpu_fallback(on != 0); }

// ttx_register_direct makes the boxed fallback the PrivateUse1 kernel of
// one aten op ("add.Tensor"): a structured op's functional and in-place
// forms otherwise take PyTorch's composite kernel, which computes the
// result's meta, allocates it and calls the out= form (two engine calls
// where one does). It returns 0, or -1 with a message in msg.
__attribute__((visibility("default"))) int ttx_register_direct(const char* name, char* msg, int cap) {
  static torch::Library* lib = nullptr;
  try {
    if (!lib) lib = new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::PrivateUse1, __FILE__, __LINE__);
    lib->impl(name, torch::CppFunction::makeFromBoxedFunction<&torchtpu::fallback>());
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(msg, size_t(cap), "%s", e.what());
    return -1;
  }
}

// ttx_register_boxed makes the boxed fallback the PrivateUse1 kernel of a
// user's op (namespace ns, name "op" or "op.overload") that the engine now
// lowers: a custom op's CompositeExplicitAutograd kernel would otherwise
// run its Python body on tpu tensors. It returns 0, or -1 with a message.
__attribute__((visibility("default"))) int ttx_register_boxed(const char* ns, const char* name, char* msg, int cap) {
  static std::mutex mu;
  static std::unordered_map<std::string, torch::Library*> libs;
  try {
    std::lock_guard<std::mutex> lock(mu);
    auto& lib = libs[ns];
    if (!lib) lib = new torch::Library(torch::Library::IMPL, ns, c10::DispatchKey::PrivateUse1, __FILE__, __LINE__);
    lib->impl(name, torch::CppFunction::makeFromBoxedFunction<&torchtpu::fallback>());
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(msg, size_t(cap), "%s", e.what());
    return -1;
  }
}

// ttx_note_fallback counts (and warns once for) an op the Python side ran
// on the CPU: a decomposition that calls the op it decomposes.
__attribute__((visibility("default"))) int ttx_note_fallback(const char* name, const char* why) {
  using namespace torchtpu;
  std::string n(name), base = n, overload;
  if (auto dot = n.find('.'); dot != std::string::npos) {
    base = n.substr(0, dot);
    overload = n.substr(dot + 1);
  }
  if (overload == "default") overload = "";
  auto handle = c10::Dispatcher::singleton().findOp(c10::OperatorName(base, overload));
  if (!handle) return -1;
  OpInfo& in = info(*handle);
  if (!cpu_fallback_on.load()) return 1;
  if (!in.warned.exchange(true)) {
    TORCH_WARN("torchtpu: ", in.name, " runs on the CPU (", why,
               "); each call moves its tensors to the CPU and back. torchtpu.report() lists such ops.");
  }
  in.cpu_calls.fetch_add(1);
  cpu_calls_total.fetch_add(1);
  std::lock_guard<std::mutex> lock(ops_mu);
  in.reason = why;
  return 0;
}

// ttx_fallback_calls returns how many op calls the fallback policy sent to
// the CPU so far (random ops, which always use the CPU generator, excluded).
__attribute__((visibility("default"))) int64_t ttx_fallback_calls() { return torchtpu::cpu_calls_total.load(); }

// ttx_fallbacks writes a JSON list of the ops that ran on the CPU: op,
// calls, reason. It returns the length needed (write again with more room
// when it is larger than cap).
__attribute__((visibility("default"))) int ttx_fallbacks(char* buf, int cap) {
  using namespace torchtpu;
  std::ostringstream js;
  js << "[";
  bool first = true;
  {
    std::lock_guard<std::mutex> lock(ops_mu);
    for (auto& kv : ops) {
      auto* in = kv.second;
      int64_t n = in->cpu_calls.load();
      if (n == 0) continue;
      if (!first) js << ",";
      first = false;
      std::string r = in->reason;
      std::string esc;
      for (char c : r) {
        if (c == '"' || c == '\\') esc += '\\';
        if (c == '\n') {
          esc += "\\n";
          continue;
        }
        esc += c;
      }
      js << "{\"op\":\"" << in->name << "\",\"calls\":" << n << ",\"random\":"
         << (in->kind == Kind::Random ? "true" : "false") << ",\"reason\":\"" << esc << "\"}";
    }
  }
  js << "]";
  std::string s = js.str();
  if (int(s.size()) < cap) std::memcpy(buf, s.c_str(), s.size() + 1);
  return int(s.size()) + 1;
}

}  // extern "C"
