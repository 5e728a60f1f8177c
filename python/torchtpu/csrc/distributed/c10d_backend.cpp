// The tpu device's c10d backend (registered by torchtpu.distributed as
// "torchtpu" for the tpu device).
//
// Each collective stages its tpu tensors through host memory: the inputs
// are read from the device (which waits for the ops that produce them), a
// host backend runs the collective on CPU twins (Gloo, created by PyTorch
// for the same store, ranks and timeout: a transport of PyTorch's, not one
// of ours), and when it is done the results are written back to the device
// and the Work's future completes. Before that, every rank's call is
// checked against the others' (a small all-gather on the host backend), so
// a collective called with different shapes or kinds on different ranks
// raises on every rank, naming them, instead of hanging or exchanging
// garbage. A failure of the host backend (a rank that died, a timeout)
// raises a DistBackendError naming the collective, the ranks, and which
// ranks on this host have exited.
#include "c10d.h"

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/library.h>

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "runtime/device.h"

namespace torchtpu::dist {

namespace {

// Op codes in a call's fingerprint.
enum Code : int64_t {
  kBroadcast = 1, kAllreduce, kAllreduceCoalesced, kReduce, kAllgather, kAllgatherBase, kAllgatherCoalesced,
  kAllgatherIntoTensorCoalesced, kGather, kScatter, kReduceScatter, kReduceScatterBase,
  kReduceScatterTensorCoalesced, kAlltoallBase, kAlltoall, kBarrier, kSend, kRecv,
};

const char* code_name(int64_t c) {
  static const char* names[] = {"?", "broadcast", "all_reduce", "all_reduce_coalesced", "reduce", "all_gather",
                                "all_gather_into_tensor", "all_gather_coalesced", "all_gather_into_tensor_coalesced",
                                "gather", "scatter", "reduce_scatter", "reduce_scatter_tensor",
                                "reduce_scatter_tensor_coalesced", "all_to_all_single", "all_to_all", "barrier",
                                "send", "recv"};
  return c > 0 && c <= kRecv ? names[c] : "?";
}

const char* redop_name(int64_t op) {
  switch (op) {
    case c10d::ReduceOp::SUM: return "SUM";
    case c10d::ReduceOp::AVG: return "AVG";
    case c10d::ReduceOp::PRODUCT: return "PRODUCT";
    case c10d::ReduceOp::MIN: return "MIN";
    case c10d::ReduceOp::MAX: return "MAX";
    case c10d::ReduceOp::BAND: return "BAND";
    case c10d::ReduceOp::BOR: return "BOR";
    case c10d::ReduceOp::BXOR: return "BXOR";
    case c10d::ReduceOp::PREMUL_SUM: return "PREMUL_SUM";
    default: return "?";
  }
}

// The message of an exception, without the C++ backtrace c10 errors carry.
std::string message(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const c10::Error& err) {
    return err.what_without_backtrace();
  } catch (const std::exception& err) {
    return err.what();
  } catch (...) {
    return "unknown error";
  }
}

[[noreturn]] void raise(const std::string& msg) { C10_THROW_ERROR(DistBackendError, msg); }

// Fingerprint: what a rank's call looks like to the others.
constexpr int kFP = 12;
enum FP { fCode, fDtype, fRoot, fRedop, fCount, fNumel, fNdim, fD0, fD1, fD2, fD3, fHash };

}  // namespace

struct Backend::Call {
  int64_t code;
  c10d::OpType type;
  uint64_t seq = 0;
  int64_t root = -1;
  int64_t redop = -1;
  std::vector<at::Tensor> tensors;  // those whose shapes every rank must share
  bool rows_may_differ = false;     // all_to_all_single: dim 0 may differ by rank

  Call(int64_t code, c10d::OpType type) : code(code), type(type) {}

  std::vector<int64_t> fingerprint() const {
    std::vector<int64_t> f(kFP, 0);
    f[fCode] = code;
    f[fRoot] = root;
    f[fRedop] = redop;
    f[fCount] = int64_t(tensors.size());
    f[fDtype] = tensors.empty() ? -1 : int64_t(tensors[0].scalar_type());
    uint64_t h = 1469598103934665603ull;
    for (const auto& t : tensors) {
      if (!rows_may_differ) f[fNumel] += t.numel();
      h = (h ^ uint64_t(t.scalar_type())) * 1099511628211ull;
      for (int64_t d = rows_may_differ ? 1 : 0; d < t.dim(); d++) h = (h ^ uint64_t(t.size(d))) * 1099511628211ull;
    }
    f[fHash] = int64_t(h & 0x7fffffffffffffffull);
    if (!tensors.empty()) {
      const auto& t = tensors[0];
      f[fNdim] = t.dim();
      for (int64_t d = 0; d < t.dim() && d < 4; d++) f[fD0 + d] = (rows_may_differ && d == 0) ? -1 : t.size(d);
    }
    return f;
  }

  // describe prints a fingerprint: all_reduce(SUM) float32[4, 5].
  static std::string describe(const int64_t* f) {
    std::ostringstream s;
    s << code_name(f[fCode]);
    if (f[fRedop] >= 0) s << "(" << redop_name(f[fRedop]) << ")";
    if (f[fRoot] >= 0) s << " root " << f[fRoot];
    if (f[fCount] > 0) {
      s << " " << c10::getDtypeNames(c10::ScalarType(f[fDtype])).first << "[";
      for (int64_t d = 0; d < f[fNdim]; d++) {
        if (d) s << ", ";
        if (d >= 4) {
          s << "...";
          break;
        }
        if (f[fD0 + d] < 0) s << "*";
        else s << f[fD0 + d];
      }
      s << "]";
      if (f[fCount] > 1) s << " and " << f[fCount] - 1 << " more tensors (" << f[fNumel] << " elements)";
    }
    return s.str();
  }

  std::string what() const {
    auto f = fingerprint();
    return describe(f.data()) + " (call #" + std::to_string(seq) + ")";
  }
};

Backend::Backend(c10::intrusive_ptr<c10d::Backend> host, int rank, int size, std::chrono::milliseconds timeout,
                 std::vector<Peer> peers, std::string group)
    : c10d::Backend(rank, size), host_(std::move(host)), timeout_(timeout) {
  auto g = std::make_shared<Group>();
  g->rank = rank;
  g->size = size;
  g->peers = std::move(peers);
  g->name = std::move(group);
  g->timeout_ms = timeout.count();
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) == 0) g->my_host = name;
  group_ = std::move(g);
  const char* c = std::getenv("TORCHTPU_DIST_CHECK");
  check_ = !(c && std::strcmp(c, "0") == 0);
}

std::function<std::string(const std::string&)> Backend::explainer(const std::string& what) const {
  auto g = group_;
  return [g, what](const std::string& cause) { return g->explain(what, cause); };
}

std::chrono::milliseconds Backend::op_timeout(std::chrono::milliseconds t) const {
  return t == c10d::kUnsetTimeout ? timeout_ : t;
}

// ---- failures ----------------------------------------------------------------

// A process that is gone, or a zombie not yet reaped by its parent.
static bool exited(int64_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  if (!f) return true;
  std::string line;
  std::getline(f, line);
  auto p = line.rfind(')');
  return p != std::string::npos && p + 2 < line.size() && (line[p + 2] == 'Z' || line[p + 2] == 'X');
}

std::string Group::exited_ranks() const {
  // A rank killed a moment ago closes its connections before it is gone
  // from the process table: give it that moment.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::vector<std::string> gone;
  int elsewhere = 0;
  for (size_t r = 0; r < peers.size(); r++) {
    if (int(r) == rank) continue;
    const Peer& p = peers[r];
    if (p.pid <= 0 || p.host != my_host) {
      elsewhere++;
      continue;
    }
    if (exited(p.pid)) gone.push_back("rank " + std::to_string(r) + " (pid " + std::to_string(p.pid) + ")");
  }
  std::string s;
  if (!gone.empty()) {
    s = gone.size() == 1 ? gone[0] + " has exited" : "";
    if (gone.size() > 1) {
      for (size_t i = 0; i < gone.size(); i++) s += (i ? ", " : "") + gone[i];
      s += " have exited";
    }
  } else if (peers.size() > 1) {
    s = "no rank on this host has exited";
  }
  if (elsewhere > 0) s += std::string(s.empty() ? "" : "; ") + std::to_string(elsewhere) + " ranks on other hosts";
  return s;
}

std::string Group::explain(const std::string& what, const std::string& cause) const {
  std::ostringstream s;
  s << "torchtpu: " << what << " on rank " << rank << " of " << size;
  if (!name.empty()) s << " (process group " << name << ")";
  s << " failed: " << cause;
  std::string low = cause;
  for (auto& ch : low) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (low.find("timed out") != std::string::npos || low.find("timeout") != std::string::npos)
    s << " (the group's timeout is " << timeout_ms.load() / 1000.0
      << " s: a rank did not reach this collective, or is stuck)";
  std::string ex = exited_ranks();
  if (!ex.empty()) s << " [" << ex << "]";
  return s.str();
}

// ---- agreement ---------------------------------------------------------------

void Backend::agree(Call& c) {
  c.seq = ++seq_;
  if (!check_ || getSize() == 1) return;
  auto mine = c.fingerprint();
  at::Tensor in = at::from_blob(mine.data(), {kFP}, at::kLong).clone();
  at::Tensor all = at::empty({int64_t(getSize()) * kFP}, at::kLong);
  try {
    c10d::AllgatherOptions o;
    o.timeout = op_timeout(c10d::kUnsetTimeout);
    host_->_allgather_base(all, in, o)->wait(o.timeout);
  } catch (...) {
    raise(group_->explain(c.what(), message(std::current_exception())));
  }
  const int64_t* f = all.const_data_ptr<int64_t>();
  bool same = true;
  for (int r = 1; r < getSize() && same; r++) same = std::memcmp(f, f + r * kFP, kFP * sizeof(int64_t)) == 0;
  if (same) return;
  // Group the ranks by what they called.
  std::map<std::vector<int64_t>, std::vector<int>> calls;
  std::vector<std::vector<int64_t>> order;
  for (int r = 0; r < getSize(); r++) {
    std::vector<int64_t> k(f + r * kFP, f + (r + 1) * kFP);
    if (!calls.count(k)) order.push_back(k);
    calls[k].push_back(r);
  }
  std::ostringstream s;
  s << "torchtpu: collective call #" << c.seq << " differs between ranks";
  if (!group_->name.empty()) s << " (process group " << group_->name << ")";
  s << ":";
  for (const auto& k : order) {
    const auto& ranks = calls[k];
    s << (ranks.size() == 1 ? " rank " : " ranks ");
    for (size_t i = 0; i < ranks.size(); i++) s << (i ? ", " : "") << ranks[i];
    s << " called " << Call::describe(k.data()) << ";";
  }
  std::string msg = s.str();
  msg.pop_back();
  raise(msg);
}

// ---- launching -----------------------------------------------------------------

c10::intrusive_ptr<c10d::Work> Backend::launch(
    Call& c, std::shared_ptr<Stage> stage, std::vector<at::Tensor> results,
    const std::function<std::vector<c10::intrusive_ptr<c10d::Work>>()>& start) {
  std::string what = c.what();
  auto work = c10::make_intrusive<Work>(what, getRank(), c.type, std::move(results), explainer(what));
  std::vector<c10::intrusive_ptr<c10d::Work>> hosts;
  try {
    hosts = start();
  } catch (...) {
    raise(group_->explain(what, message(std::current_exception())));
  }
  if (hosts.empty()) {
    stage->write_back();
    work->complete();
    return work;
  }
  auto left = std::make_shared<std::atomic<size_t>>(hosts.size());
  auto done = [work, stage, left](std::exception_ptr error) {
    if (error) {
      work->fail(message(error));
      return;
    }
    if (left->fetch_sub(1) != 1) return;
    try {
      stage->write_back();
      work->complete();
    } catch (...) {
      work->fail("writing the results back to the tpu device: " + message(std::current_exception()));
    }
  };
  for (auto& h : hosts) {
    c10::intrusive_ptr<c10::ivalue::Future> fut;
    try {
      fut = h->getFuture();
    } catch (const c10::Error&) {  // a host work without a future (Gloo's reduce-scatter)
    }
    if (fut) {
      fut->addCallback([done](c10::ivalue::Future& f) { done(f.hasError() ? f.exception_ptr() : nullptr); });
    } else {
      waiter_.add(h, done);
    }
  }
  return work;
}

// ---- the waiter -------------------------------------------------------------------

void Waiter::add(c10::intrusive_ptr<c10d::Work> h, std::function<void(std::exception_ptr)> done) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  queue_.emplace_back(std::move(h), std::move(done));
  cv_.notify_one();
}

void Waiter::loop() {
  for (;;) {
    std::pair<c10::intrusive_ptr<c10d::Work>, std::function<void(std::exception_ptr)>> item;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    std::exception_ptr error;
    try {
      item.first->wait();
    } catch (...) {
      error = std::current_exception();
    }
    item.second(error);
  }
}

Waiter::~Waiter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();  // the last reference went with a work it completed
  } else {
    thread_.join();
  }
}

// ---- reductions ----------------------------------------------------------------

namespace {

// host_reduce prepares a reduction for the host backend: AVG becomes SUM
// with a division before the results are written back (so every dtype and
// host library computes it the same way), PREMUL_SUM a multiplication of
// the inputs and SUM.
c10d::ReduceOp host_reduce(const c10d::ReduceOp& op, Stage& stage, const std::vector<at::Tensor>& inputs,
                           int size) {
  if (op.op_ == c10d::ReduceOp::AVG) {
    auto outs = stage.host;
    stage.before_write = [outs, size]() {
      for (auto t : outs) {
        if (at::isFloatingType(t.scalar_type()) || at::isComplexType(t.scalar_type())) {
          t.div_(size);
        } else {
          t.div_(size, "trunc");
        }
      }
    };
    return c10d::ReduceOp(c10d::ReduceOp::SUM);
  }
  if (op.op_ == c10d::ReduceOp::PREMUL_SUM) {
    auto* sup = dynamic_cast<c10d::NCCLPreMulSumSupplement*>(op.supplement_.get());
    TORCH_CHECK(sup, "torchtpu: PREMUL_SUM without its factor");
    for (auto t : inputs) {
      if (sup->tensor_factor.defined()) {
        t.mul_(sup->tensor_factor.to(at::kCPU).to(t.scalar_type()));
      } else {
        t.mul_(sup->double_factor);
      }
    }
    return c10d::ReduceOp(c10d::ReduceOp::SUM);
  }
  return op;
}

std::vector<at::Tensor> flat(const std::vector<std::vector<at::Tensor>>& ls) {
  std::vector<at::Tensor> r;
  for (const auto& l : ls) r.insert(r.end(), l.begin(), l.end());
  return r;
}

}  // namespace

using WorkPtr = c10::intrusive_ptr<c10d::Work>;
using Works = std::vector<WorkPtr>;

WorkPtr Backend::allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) {
  Call c(kAllreduce, c10d::OpType::ALLREDUCE);
  c.redop = opts.reduceOp.op_;
  c.tensors = tensors;
  agree(c);
  auto s = std::make_shared<Stage>();
  auto host = s->inout(tensors);
  c10d::AllreduceOptions o;
  o.reduceOp = host_reduce(opts.reduceOp, *s, host, getSize());
  o.timeout = op_timeout(opts.timeout);
  return launch(c, s, tensors, [&] { return Works{host_->allreduce(host, o)}; });
}

WorkPtr Backend::allreduce_coalesced(std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) {
  Call c(kAllreduceCoalesced, c10d::OpType::ALLREDUCE_COALESCED);
  c.redop = opts.reduceOp.op_;
  c.tensors = tensors;
  agree(c);
  auto s = std::make_shared<Stage>();
  auto host = s->inout(tensors);
  c10d::AllreduceOptions o;
  o.reduceOp = host_reduce(opts.reduceOp, *s, host, getSize());
  o.timeout = op_timeout(opts.timeout);
  // One host all-reduce per tensor: tensors of any dtypes, in order.
  return launch(c, s, tensors, [&] {
    Works ws;
    for (auto& t : host) {
      std::vector<at::Tensor> one{t};
      ws.push_back(host_->allreduce(one, o));
    }
    return ws;
  });
}

WorkPtr Backend::reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) {
  Call c(kReduce, c10d::OpType::REDUCE);
  c.redop = opts.reduceOp.op_;
  c.root = opts.rootRank;
  c.tensors = tensors;
  agree(c);
  auto s = std::make_shared<Stage>();
  // Only the root receives the result; the others' tensors stay as they are.
  auto host = getRank() == opts.rootRank ? s->inout(tensors) : s->in(tensors);
  c10d::ReduceOptions o;
  o.reduceOp = host_reduce(opts.reduceOp, *s, host, getSize());
  o.rootRank = opts.rootRank;
  o.rootTensor = opts.rootTensor;
  o.timeout = op_timeout(opts.timeout);
  return launch(c, s, tensors, [&] { return Works{host_->reduce(host, o)}; });
}

WorkPtr Backend::reduce_scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                const c10d::ReduceScatterOptions& opts) {
  TORCH_CHECK(outputs.size() == 1 && inputs.size() == 1, "torchtpu: reduce_scatter takes one output tensor");
  TORCH_CHECK(int(inputs[0].size()) == getSize(), "torchtpu: reduce_scatter needs ", getSize(), " input tensors, got ",
              inputs[0].size());
  Call c(kReduceScatter, c10d::OpType::REDUCE_SCATTER);
  c.redop = opts.reduceOp.op_;
  c.tensors = inputs[0];
  agree(c);
  // As one reduce-scatter of the inputs laid end to end.
  auto s = std::make_shared<Stage>();
  std::vector<at::Tensor> parts;
  for (const auto& t : inputs[0]) parts.push_back(s->in(t).reshape({-1}));
  std::vector<at::Tensor> host_in{at::cat(parts)};
  auto host_out = s->out(outputs[0]);
  std::vector<at::Tensor> hout{host_out};
  c10d::ReduceScatterOptions o;
  o.reduceOp = host_reduce(opts.reduceOp, *s, host_in, getSize());
  o.timeout = op_timeout(opts.timeout);
  at::Tensor flat_out = host_out.view({-1});
  return launch(c, s, outputs, [&] { return Works{host_->_reduce_scatter_base(flat_out, host_in[0], o)}; });
}

WorkPtr Backend::_reduce_scatter_base(at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) {
  TORCH_CHECK(input.numel() == output.numel() * getSize(), "torchtpu: reduce_scatter_tensor: the input has ",
              input.numel(), " elements, want ", getSize(), " x ", output.numel());
  Call c(kReduceScatterBase, c10d::OpType::_REDUCE_SCATTER_BASE);
  c.redop = opts.reduceOp.op_;
  c.tensors = {input, output};
  agree(c);
  auto s = std::make_shared<Stage>();
  std::vector<at::Tensor> hin{s->in(input)};
  at::Tensor hout = s->out(output);
  c10d::ReduceScatterOptions o;
  o.reduceOp = host_reduce(opts.reduceOp, *s, hin, getSize());
  o.timeout = op_timeout(opts.timeout);
  at::Tensor fout = hout.view({-1}), fin = hin[0].view({-1});  // flat: Gloo splits dim 0
  return launch(c, s, {output}, [&] { return Works{host_->_reduce_scatter_base(fout, fin, o)}; });
}

WorkPtr Backend::reduce_scatter_tensor_coalesced(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                                 const c10d::ReduceScatterOptions& opts) {
  TORCH_CHECK(outputs.size() == inputs.size(), "torchtpu: reduce_scatter_tensor_coalesced: ", outputs.size(),
              " outputs for ", inputs.size(), " inputs");
  Call c(kReduceScatterTensorCoalesced, c10d::OpType::REDUCE_SCATTER_TENSOR_COALESCED);
  c.redop = opts.reduceOp.op_;
  c.tensors = inputs;
  agree(c);
  auto s = std::make_shared<Stage>();
  auto hin = s->in(inputs);
  auto hout = s->out(outputs);
  c10d::ReduceScatterOptions o;
  o.reduceOp = host_reduce(opts.reduceOp, *s, hin, getSize());
  o.timeout = op_timeout(opts.timeout);
  return launch(c, s, outputs, [&] {
    Works ws;
    for (size_t i = 0; i < hin.size(); i++) {
      at::Tensor fout = hout[i].view({-1}), fin = hin[i].view({-1});
      ws.push_back(host_->_reduce_scatter_base(fout, fin, o));
    }
    return ws;
  });
}

// ---- data movement -------------------------------------------------------------

WorkPtr Backend::broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) {
  Call c(kBroadcast, c10d::OpType::BROADCAST);
  c.root = opts.rootRank;
  c.tensors = tensors;
  agree(c);
  auto s = std::make_shared<Stage>();
  auto host = getRank() == opts.rootRank ? s->in(tensors) : s->out(tensors);
  c10d::BroadcastOptions o;
  o.rootRank = opts.rootRank;
  o.rootTensor = opts.rootTensor;
  o.timeout = op_timeout(opts.timeout);
  return launch(c, s, tensors, [&] { return Works{host_->broadcast(host, o)}; });
}

WorkPtr Backend::allgather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                           const c10d::AllgatherOptions& opts) {
  Call c(kAllgather, c10d::OpType::ALLGATHER);
  c.tensors = inputs;
  agree(c);
  auto s = std::make_shared<Stage>();
  auto hin = s->in(inputs);
  std::vector<std::vector<at::Tensor>> hout;
  for (const auto& l : outputs) hout.push_back(s->out(l));
  c10d::AllgatherOptions o;
  o.timeout = op_timeout(opts.timeout);
  return launch(c, s, flat(outputs), [&] { return Works{host_->allgather(hout, hin, o)}; });
}

WorkPtr Backend::_allgather_base(at::Tensor& output, at::Tensor& input, const c10d::AllgatherOptions& opts) {
  TORCH_CHECK(output.numel() == input.numel() * getSize(), "torchtpu: all_gather_into_tensor: the output has ",
              output.numel(), " elements, want ", getSize(), " x ", input.numel());
  Call c(kAllgatherBase, c10d::OpType::_ALLGATHER_BASE);
  c.tensors = {input, output};
  agree(c);
  auto s = std::make_shared<Stage>();
  at::Tensor hin = s->in(input);
  at::Tensor hout = s->out(output);
  c10d::AllgatherOptions o;
  o.timeout = op_timeout(opts.timeout);
  at::Tensor fout = hout.view({-1}), fin = hin.view({-1});  // flat: Gloo splits dim 0
  return launch(c, s, {output}, [&] { return Works{host_->_allgather_base(fout, fin, o)}; });
}

WorkPtr Backend::allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                     const c10d::AllgatherOptions& opts) {
  Call c(kAllgatherCoalesced, c10d::OpType::ALLGATHER_COALESCED);
  c.tensors = inputs;
  agree(c);
  TORCH_CHECK(int(outputs.size()) == getSize(), "torchtpu: all_gather_coalesced needs ", getSize(),
              " output lists, got ", outputs.size());
  auto s = std::make_shared<Stage>();
  auto hin = s->in(inputs);
  std::vector<std::vector<at::Tensor>> hout;
  for (const auto& l : outputs) hout.push_back(s->out(l));
  c10d::AllgatherOptions o;
  o.timeout = op_timeout(opts.timeout);
  // One host all-gather per input: outputs[r][i] is rank r's inputs[i].
  return launch(c, s, flat(outputs), [&] {
    Works ws;
    for (size_t i = 0; i < hin.size(); i++) {
      std::vector<std::vector<at::Tensor>> out_i(1);
      for (auto& l : hout) out_i[0].push_back(l[i]);
      std::vector<at::Tensor> in_i{hin[i]};
      ws.push_back(host_->allgather(out_i, in_i, o));
    }
    return ws;
  });
}

WorkPtr Backend::allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                                 const c10d::AllgatherOptions& opts) {
  TORCH_CHECK(outputs.size() == inputs.size(), "torchtpu: all_gather_into_tensor_coalesced: ", outputs.size(),
              " outputs for ", inputs.size(), " inputs");
  Call c(kAllgatherIntoTensorCoalesced, c10d::OpType::ALLGATHER_INTO_TENSOR_COALESCED);
  c.tensors = inputs;
  agree(c);
  auto s = std::make_shared<Stage>();
  auto hin = s->in(inputs);
  auto hout = s->out(outputs);
  c10d::AllgatherOptions o;
  o.timeout = op_timeout(opts.timeout);
  return launch(c, s, outputs, [&] {
    Works ws;
    for (size_t i = 0; i < hin.size(); i++) {
      at::Tensor fout = hout[i].view({-1}), fin = hin[i].view({-1});
      ws.push_back(host_->_allgather_base(fout, fin, o));
    }
    return ws;
  });
}

WorkPtr Backend::gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                        const c10d::GatherOptions& opts) {
  Call c(kGather, c10d::OpType::GATHER);
  c.root = opts.rootRank;
  c.tensors = inputs;
  agree(c);
  auto s = std::make_shared<Stage>();
  auto hin = s->in(inputs);
  std::vector<std::vector<at::Tensor>> hout;
  for (const auto& l : outputs) hout.push_back(s->out(l));
  c10d::GatherOptions o;
  o.rootRank = opts.rootRank;
  o.timeout = op_timeout(opts.timeout);
  return launch(c, s, flat(outputs), [&] { return Works{host_->gather(hout, hin, o)}; });
}

WorkPtr Backend::scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                         const c10d::ScatterOptions& opts) {
  Call c(kScatter, c10d::OpType::SCATTER);
  c.root = opts.rootRank;
  c.tensors = outputs;
  agree(c);
  auto s = std::make_shared<Stage>();
  std::vector<std::vector<at::Tensor>> hin;
  for (const auto& l : inputs) hin.push_back(s->in(l));
  auto hout = s->out(outputs);
  c10d::ScatterOptions o;
  o.rootRank = opts.rootRank;
  o.timeout = op_timeout(opts.timeout);
  return launch(c, s, outputs, [&] { return Works{host_->scatter(hout, hin, o)}; });
}

WorkPtr Backend::alltoall_base(at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_split_sizes,
                               std::vector<int64_t>& input_split_sizes, const c10d::AllToAllOptions& opts) {
  Call c(kAlltoallBase, c10d::OpType::ALLTOALL_BASE);
  c.tensors = {input, output};
  c.rows_may_differ = !output_split_sizes.empty() || !input_split_sizes.empty();
  agree(c);
  auto s = std::make_shared<Stage>();
  at::Tensor hin = s->in(input);
  at::Tensor hout = s->out(output);
  c10d::AllToAllOptions o;
  o.timeout = op_timeout(opts.timeout);
  auto osz = output_split_sizes, isz = input_split_sizes;
  return launch(c, s, {output}, [&] { return Works{host_->alltoall_base(hout, hin, osz, isz, o)}; });
}

WorkPtr Backend::alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                          const c10d::AllToAllOptions& opts) {
  TORCH_CHECK(int(outputs.size()) == getSize() && int(inputs.size()) == getSize(), "torchtpu: all_to_all needs ",
              getSize(), " input and output tensors");
  Call c(kAlltoall, c10d::OpType::ALLTOALL);
  c.tensors = {inputs[0]};
  c.rows_may_differ = true;
  agree(c);
  // As one all_to_all_single of the tensors laid end to end: rank r's
  // inputs[q] becomes rank q's outputs[r].
  auto s = std::make_shared<Stage>();
  std::vector<at::Tensor> parts;
  std::vector<int64_t> isz, osz;
  for (const auto& t : inputs) {
    parts.push_back(s->in(t).reshape({-1}));
    isz.push_back(t.numel());
  }
  at::Tensor hin = at::cat(parts);
  int64_t total = 0;
  for (const auto& t : outputs) {
    osz.push_back(t.numel());
    total += t.numel();
  }
  at::Tensor hout = at::empty({total}, hin.options());
  int64_t off = 0;
  for (const auto& t : outputs) {
    s->dev.push_back(t);
    s->host.push_back(hout.narrow(0, off, t.numel()).view(t.sizes()));
    off += t.numel();
  }
  c10d::AllToAllOptions o;
  o.timeout = op_timeout(opts.timeout);
  return launch(c, s, outputs, [&] { return Works{host_->alltoall_base(hout, hin, osz, isz, o)}; });
}

// ---- point to point and barrier --------------------------------------------------

WorkPtr Backend::send(std::vector<at::Tensor>& tensors, int dst, int tag) {
  auto s = std::make_shared<Stage>();
  auto host = s->in(tensors);
  Call c(kSend, c10d::OpType::SEND);
  c.root = dst;
  c.tensors = tensors;
  c.seq = ++seq_;
  std::string what = c.what();
  WorkPtr h;
  try {
    h = host_->send(host, dst, tag);
  } catch (...) {
    raise(group_->explain(what, message(std::current_exception())));
  }
  auto work = c10::make_intrusive<Work>(what, getRank(), c.type, tensors, explainer(what));
  work->defer(h, [s, host] {});  // keeps the twins alive until sent
  return work;
}

WorkPtr Backend::recv(std::vector<at::Tensor>& tensors, int src, int tag) {
  auto s = std::make_shared<Stage>();
  auto host = s->out(tensors);
  Call c(kRecv, src < 0 ? c10d::OpType::RECVANYSOURCE : c10d::OpType::RECV);
  c.root = src;
  c.tensors = tensors;
  c.seq = ++seq_;
  std::string what = c.what();
  WorkPtr h;
  try {
    h = src < 0 ? host_->recvAnysource(host, tag) : host_->recv(host, src, tag);
  } catch (...) {
    raise(group_->explain(what, message(std::current_exception())));
  }
  auto work = c10::make_intrusive<Work>(what, getRank(), c.type, tensors, explainer(what));
  work->defer(h, [s] { s->write_back(); });
  return work;
}

WorkPtr Backend::recvAnysource(std::vector<at::Tensor>& tensors, int tag) { return recv(tensors, -1, tag); }

WorkPtr Backend::barrier(const c10d::BarrierOptions& opts) {
  // Everything queued on the device before the barrier is done first.
  char* err = nullptr;
  int64_t rc = abi.device_synchronize(&err);
  check(rc, err, "tt_device_synchronize");
  Call c(kBarrier, c10d::OpType::BARRIER);
  agree(c);
  c10d::BarrierOptions o;
  o.timeout = op_timeout(opts.timeout);
  return launch(c, std::make_shared<Stage>(), {}, [&] { return Works{host_->barrier(o)}; });
}

}  // namespace torchtpu::dist

// ---- creation ----------------------------------------------------------------------

namespace {

using torchtpu::dist::Peer;

// torchtpu::_c10d_backend(pg, timeout_ms, peers, group): makes the tpu
// backend of process group pg, whose CPU backend (Gloo, set by
// torchtpu.distributed) carries its data, and sets it as pg's backend for
// the tpu device. peers[r] is "global_rank:pid:host" of group rank r.
void new_backend(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  auto args = torch::jit::last(*stack, 4);
  auto obj = args[0].toObject();
  auto pg = c10::static_intrusive_pointer_cast<c10d::ProcessGroup>(obj->getSlot(0).toCapsule());
  auto timeout = std::chrono::milliseconds(args[1].toInt());
  std::vector<Peer> peers;
  for (const auto& v : args[2].toListRef()) {
    std::string s = v.toStringRef();
    Peer p;
    auto a = s.find(':'), b = s.find(':', a + 1);
    TORCH_CHECK(a != std::string::npos && b != std::string::npos, "torchtpu: bad peer ", s);
    p.global_rank = std::stoll(s.substr(0, a));
    p.pid = std::stoll(s.substr(a + 1, b - a - 1));
    p.host = s.substr(b + 1);
    peers.push_back(std::move(p));
  }
  std::string group = args[3].toStringRef();
  torch::jit::drop(*stack, 4);
  auto host = pg->getBackend(c10d::ProcessGroup::BackendType::GLOO);
  auto b = c10::make_intrusive<torchtpu::dist::Backend>(host, host->getRank(), host->getSize(), timeout,
                                                         std::move(peers), group);
  pg->setBackend(torchtpu::kTPU, c10d::ProcessGroup::BackendType::CUSTOM, b);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(torchtpu, m) {
  m.def("_c10d_backend(__torch__.torch.classes.c10d.ProcessGroup pg, int timeout_ms, str[] peers, str group) -> ()",
        torch::CppFunction::makeFromBoxedFunction<&new_backend>());
}
