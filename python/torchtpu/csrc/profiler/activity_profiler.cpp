// The tpu device in PyTorch's profiler: torch.profiler.profile(activities=
// [ProfilerActivity.PrivateUse1]) shows each engine task the device ran
// (an op's program, a fused block, a compiled graph, a copy to or from the
// host) as a device row of the trace with its device time, and adds that
// time to the aten op or record_function range that launched it
// (device_time_total, self_device_time_total).
//
// It is a Kineto child profiler (libkineto::IActivityProfiler, registered
// with REGISTER_PRIVATEUSE1_PROFILER, as PyTorch's reference device OpenReg
// registers its own): Kineto starts and stops a session with the trace;
// while it records, Kineto hands the session the correlation id of every
// op it records as the op starts, which the session passes to the engine
// (tt_profiler_tag), and the engine stamps each task it queues with it and
// times the task where it runs, on the device's stream (eager/profile.go).
// At the end the session turns the engine's records into Kineto
// activities linked to the ops that launched them.
//
// Kineto's headers are in torch's include/kineto, and its code in
// libtorch_cpu; a torch built without Kineto has neither, and the device
// then has no profiler (a CPU-only trace).
#if __has_include(<IActivityProfiler.h>) && __has_include(<torch/csrc/profiler/standalone/privateuse1_profiler.h>)
#ifndef USE_KINETO
#define USE_KINETO 1
#endif
#include <IActivityProfiler.h>
#include <libkineto.h>
#include <output_base.h>
#include <torch/csrc/profiler/standalone/privateuse1_profiler.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/abi.h"

namespace torchtpu {
namespace {

// One task the engine ran while recording (tt_profiler_stop's lines).
struct Task {
  int64_t start, end;
  uint64_t tag;
  std::string kind, name;
};

std::vector<Task> parse(const char* text) {
  std::vector<Task> out;
  for (const char* p = text; p && *p;) {
    const char* eol = std::strchr(p, '\n');
    std::string line(p, eol ? size_t(eol - p) : std::strlen(p));
    p = eol ? eol + 1 : nullptr;
    if (line.rfind("dropped ", 0) == 0 || line.empty()) continue;
    Task t{};
    char* q = nullptr;
    t.start = std::strtoll(line.c_str(), &q, 10);
    t.end = std::strtoll(q, &q, 10);
    t.tag = std::strtoull(q, &q, 10);
    while (*q == ' ') q++;
    const char* sp = std::strchr(q, ' ');
    if (!sp) continue;
    t.kind.assign(q, size_t(sp - q));
    t.name = sp + 1;
    out.push_back(std::move(t));
  }
  return out;
}

// The span device activities belong to; it outlives every trace (Kineto's
// logger keeps copies of the activities, which point at it).
const libkineto::TraceSpan& span() {
  static const libkineto::TraceSpan* s = new libkineto::TraceSpan(0, 0, "tpu");
  return *s;
}

// The correlation ids of the ops being recorded on this thread, innermost
// last. The engine takes the innermost of the thread that last pushed or
// popped one: ops on several threads at once share that tag.
thread_local std::vector<uint64_t> correlation;

class Session final : public libkineto::IActivityProfilerSession {
 public:
  void start() override {
    char* err = nullptr;
    if (abi.profiler_start(&err) != 0) {
      errors_.push_back(err ? err : "tt_profiler_start failed");
      if (err) abi.string_free(err);
      status_ = libkineto::TraceStatus::ERROR;
      return;
    }
    status_ = libkineto::TraceStatus::RECORDING;
  }

  void stop() override {
    abi.profiler_tag(0);
    char* err = nullptr;
    char* text = abi.profiler_stop(&err);
    if (!text) {
      errors_.push_back(err ? err : "tt_profiler_stop failed");
      if (err) abi.string_free(err);
      status_ = libkineto::TraceStatus::ERROR;
      return;
    }
    tasks_ = parse(text);
    abi.string_free(text);
    status_ = libkineto::TraceStatus::PROCESSING;
  }

  std::vector<std::string> errors() override { return errors_; }

  void processTrace(libkineto::ActivityLogger& logger) override {
    processTrace(logger, nullptr, 0, 0);
  }

  void processTrace(libkineto::ActivityLogger& logger, libkineto::getLinkedActivityCallback linked, int64_t,
                    int64_t) override {
    for (const Task& t : tasks_) {
      auto type = t.kind == "copy" ? libkineto::ActivityType::GPU_MEMCPY : libkineto::ActivityType::CONCURRENT_KERNEL;
      libkineto::GenericTraceActivity act(span(), type, t.name);
      act.startTime = t.start;
      act.endTime = t.end;
      act.id = int32_t(t.tag);
      act.device = 0;
      act.resource = 0;
      act.threadId = 0;
      if (t.tag != 0 && linked) act.linked = linked(int32_t(t.tag));
      act.addMetadataQuoted("kind", t.kind);  // (addMetadata formats with fmt, whose code torch keeps hidden)
      logger.handleGenericActivity(act);
    }
    tasks_.clear();
  }

  std::unique_ptr<libkineto::DeviceInfo> getDeviceInfo() override {
    return std::make_unique<libkineto::DeviceInfo>(libkineto::DeviceInfo{0, 1 << 20, "tpu", "tpu:0 (torchtpu)"});
  }

  std::vector<libkineto::ResourceInfo> getResourceInfos() override {
    return {libkineto::ResourceInfo{0, 0, 0, "stream 0"}};
  }

  std::unique_ptr<libkineto::CpuTraceBuffer> getTraceBuffer() override { return nullptr; }

  void pushCorrelationId(uint64_t id) override {
    correlation.push_back(id);
    abi.profiler_tag(id);
  }

  void popCorrelationId() override {
    if (!correlation.empty()) correlation.pop_back();
    abi.profiler_tag(correlation.empty() ? 0 : correlation.back());
  }

 private:
  std::vector<Task> tasks_;
  std::vector<std::string> errors_;
};

class TPUActivityProfiler final : public libkineto::IActivityProfiler {
 public:
  const std::string& name() const override { return name_; }

  const std::set<libkineto::ActivityType>& availableActivities() const override { return activities_; }

  // A session when the trace asks for device activity (ProfilerActivity.
  // PrivateUse1 adds kernels and copies; the host-side PRIVATEUSE1_RUNTIME
  // types come with ProfilerActivity.CPU alone too).
  std::unique_ptr<libkineto::IActivityProfilerSession> configure(const std::set<libkineto::ActivityType>& types,
                                                                 const libkineto::Config&) override {
    if (!abi_ready()) return nullptr;  // the device is not set up: a CPU-only trace
    if (types.count(libkineto::ActivityType::CONCURRENT_KERNEL) || types.count(libkineto::ActivityType::GPU_MEMCPY))
      return std::make_unique<Session>();
    return nullptr;
  }

  std::unique_ptr<libkineto::IActivityProfilerSession> configure(int64_t, int64_t,
                                                                 const std::set<libkineto::ActivityType>& types,
                                                                 const libkineto::Config& config) override {
    return configure(types, config);
  }

 private:
  std::string name_{"torchtpu"};
  std::set<libkineto::ActivityType> activities_{
      libkineto::ActivityType::CONCURRENT_KERNEL, libkineto::ActivityType::GPU_MEMCPY,
      libkineto::ActivityType::PRIVATEUSE1_RUNTIME, libkineto::ActivityType::PRIVATEUSE1_DRIVER};
};

REGISTER_PRIVATEUSE1_PROFILER(TPUActivityProfiler);

// The registry hands the factory to Kineto when PyTorch tells it Kineto has
// started, which torch 2.15 does and Debian's 2.14 does not: hand it over
// now. Kineto keeps a factory given before it starts and instantiates it
// then, and adds one given later to the running profiler.
struct HandOver {
  HandOver() { torch::profiler::impl::PrivateUse1ProfilerRegistry::instance().onKinetoInit(); }
} hand_over;

}  // namespace
}  // namespace torchtpu

// ttx_profiler_state says how the device's profiler stands with Kineto
// (python -m torchtpu): bit 0 the factory is registered with PyTorch, bit 1
// handed to Kineto, bit 2 Kineto's profiler is initialized.
extern "C" __attribute__((visibility("default"))) int ttx_profiler_state() {
  auto& r = torch::profiler::impl::PrivateUse1ProfilerRegistry::instance();
  return (r.hasFactory() ? 1 : 0) | (r.isRegisteredWithKineto() ? 2 : 0) |
         (libkineto::api().isProfilerInitialized() ? 4 : 0);
}

#else

extern "C" __attribute__((visibility("default"))) int ttx_profiler_state() { return -1; }

#endif
