// Work: a tpu collective in flight, and its host twins (Stage).
#include "c10d.h"

#include "runtime/device.h"

namespace torchtpu::dist {

// ---- Stage -----------------------------------------------------------------

namespace {

bool on_tpu(const at::Tensor& t) { return t.device().type() == kTPU; }

// The dtype a tensor is staged as on the host.
at::ScalarType host_dtype(at::ScalarType s) {
  switch (s) {
    case at::kBFloat16:
    case at::kHalf:
      return at::kFloat;
    case at::kBool:
      return at::kByte;
    default:
      return s;
  }
}

at::Tensor host_empty(const at::Tensor& t) {
  return at::empty(t.sizes(), t.options().device(at::kCPU).dtype(host_dtype(t.scalar_type())));
}

}  // namespace

at::Tensor Stage::in(const at::Tensor& t) {
  if (!on_tpu(t)) return t;
  at::Tensor raw = at::empty(t.sizes(), t.options().device(at::kCPU));
  if (raw.numel() > 0) read_tensor(t, raw.data_ptr(), int64_t(raw.nbytes()));
  return raw.scalar_type() == host_dtype(raw.scalar_type()) ? raw : raw.to(host_dtype(raw.scalar_type()));
}

at::Tensor Stage::inout(const at::Tensor& t) {
  at::Tensor h = in(t);
  if (on_tpu(t)) {
    dev.push_back(t);
    host.push_back(h);
  }
  return h;
}

at::Tensor Stage::out(const at::Tensor& t) {
  if (!on_tpu(t)) return t;
  at::Tensor h = host_empty(t);
  dev.push_back(t);
  host.push_back(h);
  return h;
}

std::vector<at::Tensor> Stage::in(const std::vector<at::Tensor>& ts) {
  std::vector<at::Tensor> r;
  for (const auto& t : ts) r.push_back(in(t));
  return r;
}

std::vector<at::Tensor> Stage::inout(const std::vector<at::Tensor>& ts) {
  std::vector<at::Tensor> r;
  for (const auto& t : ts) r.push_back(inout(t));
  return r;
}

std::vector<at::Tensor> Stage::out(const std::vector<at::Tensor>& ts) {
  std::vector<at::Tensor> r;
  for (const auto& t : ts) r.push_back(out(t));
  return r;
}

void Stage::write_back() {
  if (before_write) before_write();
  for (size_t i = 0; i < dev.size(); i++) {
    if (dev[i].numel() == 0) continue;
    at::Tensor h = host[i].to(dev[i].scalar_type()).contiguous();
    write_tensor(dev[i], h.data_ptr(), int64_t(h.nbytes()));
  }
}

// ---- Work ------------------------------------------------------------------

Work::Work(std::string what, int rank, c10d::OpType type, std::vector<at::Tensor> results,
           std::function<std::string(const std::string&)> explain)
    : c10d::Work(rank, type),
      what_(std::move(what)),
      results_(std::move(results)),
      explain_(std::move(explain)),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {}

Work::~Work() = default;

// The future completes (running the callbacks chained on it, DDP's among
// them) before wait() returns.
void Work::complete() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (claimed_) return;
    claimed_ = true;
  }
  future_->markCompleted(c10::IValue(results_));
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
}

void Work::fail(const std::string& cause) {
  std::exception_ptr e;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (claimed_) return;
    claimed_ = true;
  }
  try {
    C10_THROW_ERROR(DistBackendError, explain_(cause));
  } catch (...) {
    e = std::current_exception();
  }
  future_->setError(e);
  {
    std::lock_guard<std::mutex> lock(mu_);
    error_ = e;
    done_ = true;
  }
  cv_.notify_all();
}

void Work::defer(c10::intrusive_ptr<c10d::Work> host, std::function<void()> finish) {
  std::lock_guard<std::mutex> lock(mu_);
  host_ = std::move(host);
  finish_ = std::move(finish);
}

bool Work::isCompleted() {
  std::lock_guard<std::mutex> lock(mu_);
  return done_ || (host_ && host_->isCompleted());
}

bool Work::isSuccess() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_ && !error_;
}

std::exception_ptr Work::exception() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

std::vector<at::Tensor> Work::result() { return results_; }

bool Work::wait(std::chrono::milliseconds timeout) {
  c10::intrusive_ptr<c10d::Work> host;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!done_) host = host_;
  }
  if (host) {
    // A deferred host work (a receive): finish it here, then write back.
    try {
      host->wait(timeout);
      if (finish_) finish_();
      complete();
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (timeout == kNoTimeout) {
    cv_.wait(lock, [&] { return done_; });
  } else if (!cv_.wait_for(lock, timeout, [&] { return done_; })) {
    lock.unlock();
    fail("not done after the " + std::to_string(timeout.count()) + " ms wait() allowed");
    lock.lock();
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}

c10::intrusive_ptr<c10::ivalue::Future> Work::getFuture() { return future_; }

}  // namespace torchtpu::dist
