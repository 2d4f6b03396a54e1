#include "gpurt/bench/bench.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include <fmt/format.h>

#include "gpurt/bench/gpu_backend.hpp"
#include "gpurt/bench/runner.hpp"
#include "gpurt/core/cuda_probe.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt {

BenchBackend parse_backend(const std::string& text) {
  if (text == "sim") return BenchBackend::sim;
  if (text == "gpu") return BenchBackend::gpu;
  throw InputError("--backend " + text, "must be \"gpu\" or \"sim\"");
}

Scenario load_bench_scenario(const std::string& path, const Platform& platform, BenchBackend backend,
                             const PluginRegistry* libraries) {
  if (backend == BenchBackend::sim) return load_scenario(path, platform);
  const std::vector<std::string> accepted =
      libraries != nullptr ? libraries->names() : std::vector<std::string>{};
  return parse_scenario(load_json_file(path), path, platform, accepted);
}

namespace {

// The probe's answer in a child process: "" (a usable device with this many SMs: "sms N") or
// the reason there is none.
std::string probe_in_child() {
  int fds[2];
  if (pipe(fds) != 0) return "cannot probe for a GPU: pipe failed";
  const pid_t pid = fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return "cannot probe for a GPU: fork failed";
  }
  if (pid == 0) {
    ::close(fds[0]);
    const ProbeResult r = probe_gpus();
    std::string msg;
    if (!r.built_with_cuda)
      msg = "gpurt was built without CUDA";
    else if (r.devices.empty())
      msg = r.reason.empty() ? "no CUDA device found" : r.reason;
    else
      msg = fmt::format("sms {}", r.devices.front().sms);
    std::size_t done = 0;
    while (done < msg.size()) {
      const ssize_t n = ::write(fds[1], msg.data() + done, msg.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buf[512];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (text.empty()) return "the GPU probe process failed";
  return text;
}

}  // namespace

std::string gpu_backend_unavailable(const Platform& platform) {
  if (!gpu_backend_built()) return "gpurt was built without CUDA (no nvcc at build time)";
  const std::string probe = probe_in_child();
  if (probe.rfind("sms ", 0) != 0) return probe;
  const int sms = std::stoi(probe.substr(4));
  if (sms != platform.sms) {
    return fmt::format(
        "device 0 has {} SMs but platform {} has {}: give --platform the preset or file of "
        "this GPU",
        sms, platform.id, platform.sms);
  }
  return "";
}

BenchResult run_bench(const Scenario& scenario, const Platform& platform, BenchBackend backend,
                      const PluginRegistry* libraries) {
  BenchResult out;
  if (backend == BenchBackend::sim) {
    SimResult r = simulate(scenario, platform);
    out.trace = std::move(r.trace);
    out.stats = r.stats;
    return out;
  }
  const std::string why = gpu_backend_unavailable(platform);
  if (!why.empty()) throw InputError("--backend gpu", "no usable GPU: " + why);
  std::unique_ptr<WorkerBackend> gpu = make_gpu_backend(libraries);
  out.trace.scenario_name = scenario.name;
  out.trace.platform = platform.id;
  out.trace.sms = platform.sms;
  out.trace.max_threads_per_sm = platform.max_threads;
  out.trace.simulated = false;
  out.trace.instances = run_instances(scenario, platform, *gpu);
  return out;
}

}  // namespace gpurt
