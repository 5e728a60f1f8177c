// The tpu device's c10d backend: torch.distributed collectives on tpu
// tensors, staged through host memory and carried between processes by a
// host backend (Gloo, through PyTorch). See c10d_backend.cpp.
#pragma once

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace torchtpu::dist {

// Peer is what a rank published about itself when the group was made: its
// global rank, host name and process id (to tell, after a failure, which
// ranks on this host have exited).
struct Peer {
  int64_t global_rank = -1;
  std::string host;
  int64_t pid = -1;
};

// Group is what a failure's message says about the process group: this
// rank, the size, the peers. Works share it with their backend (a work must
// not keep its backend alive: the last reference to a backend may otherwise
// go on a thread of the host backend that the backend's destruction joins).
struct Group {
  int rank = 0;
  int size = 1;
  std::vector<Peer> peers;
  std::string name;     // the process group's name
  std::string my_host;  // this process's host name
  mutable std::atomic<int64_t> timeout_ms{0};  // the group's timeout (set_timeout changes it)

  // explain makes a failure's message: the collective, the ranks, and
  // which ranks on this host have exited.
  std::string explain(const std::string& what, const std::string& cause) const;
  std::string exited_ranks() const;
};

// Stage holds a collective's host twins: CPU tensors the host backend
// reads and writes, and the tpu tensors written back from them when it is
// done. Half-precision tensors are staged as float32 (reductions then round
// once, and host libraries without bfloat16 work), bool as uint8.
struct Stage {
  std::vector<at::Tensor> dev;   // tpu tensors to write back
  std::vector<at::Tensor> host;  // their twins, in the same order
  std::function<void()> before_write;  // runs on the twins first (AVG's division)

  // in returns the twin of t holding t's values (a read from the device);
  // CPU tensors are their own twins.
  at::Tensor in(const at::Tensor& t);
  // inout is in, and t receives the twin's values at the end.
  at::Tensor inout(const at::Tensor& t);
  // out returns an uninitialised twin whose values t receives at the end.
  at::Tensor out(const at::Tensor& t);
  std::vector<at::Tensor> in(const std::vector<at::Tensor>& ts);
  std::vector<at::Tensor> inout(const std::vector<at::Tensor>& ts);
  std::vector<at::Tensor> out(const std::vector<at::Tensor>& ts);
  // write_back copies every twin into its tpu tensor.
  void write_back();
};

// Work is a collective in flight. Its future completes, with the
// collective's result tensors, once the host backend is done and the
// results are written back to the device: DDP's hooks chain on it. A
// point-to-point receive (whose host work has no future) completes in
// wait().
class Work final : public c10d::Work {
 public:
  Work(std::string what, int rank, c10d::OpType type, std::vector<at::Tensor> results,
       std::function<std::string(const std::string&)> explain);
  ~Work() override;

  // Completion, once: success, or an error whose message is explained
  // (the collective, the ranks).
  void complete();
  void fail(const std::string& cause);
  // defer makes wait() finish host (then run finish) on the waiting thread.
  void defer(c10::intrusive_ptr<c10d::Work> host, std::function<void()> finish);

  bool isCompleted() override;
  bool isSuccess() const override;
  std::exception_ptr exception() const override;
  std::vector<at::Tensor> result() override;
  bool wait(std::chrono::milliseconds timeout = kNoTimeout) override;
  void synchronize() override {}
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

 private:
  std::string what_;
  std::vector<at::Tensor> results_;
  std::function<std::string(const std::string&)> explain_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool claimed_ = false;  // complete() or fail() has begun
  bool done_ = false;
  std::exception_ptr error_;
  c10::intrusive_ptr<c10d::Work> host_;  // deferred host work (p2p)
  std::function<void()> finish_;
};

// Waiter completes host works that have no future (Gloo's reduce-scatter),
// in the order they were issued, on a thread of its own.
class Waiter {
 public:
  ~Waiter();
  void add(c10::intrusive_ptr<c10d::Work> h, std::function<void(std::exception_ptr)> done);

 private:
  void loop();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<c10::intrusive_ptr<c10d::Work>, std::function<void(std::exception_ptr)>>> queue_;
  std::thread thread_;
  bool stop_ = false;
};

// Backend serves the tpu device for one process group.
class Backend final : public c10d::Backend {
 public:
  Backend(c10::intrusive_ptr<c10d::Backend> host, int rank, int size, std::chrono::milliseconds timeout,
          std::vector<Peer> peers, std::string group);

  const std::string getBackendName() const override { return "torchtpu"; }
  void setTimeout(std::chrono::milliseconds timeout) override {
    timeout_ = timeout;
    group_->timeout_ms = timeout.count();
  }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                     const c10d::AllreduceCoalescedOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs,
                                                     std::vector<at::Tensor>& inputs,
                                                     const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                 std::vector<at::Tensor>& inputs,
                                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs, const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                      const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                 std::vector<at::Tensor>& inputs,
                                                                 const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_split_sizes,
                                               std::vector<int64_t>& input_split_sizes,
                                               const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src, int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;

  // Call describes one collective while it is issued (c10d_backend.cpp).
  struct Call;

 private:
  // agree checks that every rank issues the same collective on tensors of
  // the same shapes (an all-gather of a small fingerprint on the host
  // backend); a mismatch raises on every rank, naming the ranks.
  void agree(Call& c);
  // launch runs the host works start() returns and completes a Work when
  // they are done and stage is written back.
  c10::intrusive_ptr<c10d::Work> launch(Call& c, std::shared_ptr<Stage> stage, std::vector<at::Tensor> results,
                                        const std::function<std::vector<c10::intrusive_ptr<c10d::Work>>()>& start);
  std::function<std::string(const std::string&)> explainer(const std::string& what) const;
  std::chrono::milliseconds op_timeout(std::chrono::milliseconds t) const;

  c10::intrusive_ptr<c10d::Backend> host_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<const Group> group_;
  std::atomic<uint64_t> seq_{0};
  bool check_ = true;
  Waiter waiter_;
};

}  // namespace torchtpu::dist
