#include "gpurt/bench/bench.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "gpurt/bench/gpu_backend.hpp"
#include "gpurt/bench/partition_mask.hpp"
#include "gpurt/bench/runner.hpp"
#include "gpurt/core/cuda_probe.hpp"
#include "gpurt/core/error.hpp"

namespace gpurt {

BenchBackend parse_backend(const std::string& text) {
  if (text == "sim") return BenchBackend::sim;
  if (text == "gpu") return BenchBackend::gpu;
  throw InputError("--backend " + text, "must be \"gpu\" or \"sim\"");
}

namespace {
void check_for_gpu(const Scenario& s);  // below, with the probes it needs
}  // namespace

Scenario load_bench_scenario(const std::string& path, const Platform& platform, BenchBackend backend,
                             const PluginRegistry* libraries, const ConfigLimits& limits) {
  if (backend == BenchBackend::sim) return load_scenario(path, platform, limits);
  const std::vector<std::string> accepted =
      libraries != nullptr ? libraries->names() : std::vector<std::string>{};
  Scenario s = parse_scenario(load_json_file(path), path, platform, accepted, limits);
  // What only the simulator models is refused before anything runs (exit 2), not found missing
  // by a worker (exit 1): plugins without a GPU implementation, and per-kernel masks.
  // (Built without CUDA there are no GPU plugins at all; check_for_gpu then says so.)
  std::vector<std::string> runnable = gpu_plugins().names();
  const bool have_plugins = !runnable.empty();
  runnable.insert(runnable.end(), accepted.begin(), accepted.end());
  for (std::size_t i = 0; i < s.instances.size(); ++i) {
    const ScenarioInstance& inst = s.instances[i];
    if (have_plugins && std::find(runnable.begin(), runnable.end(), inst.plugin) == runnable.end()) {
      throw InputError(path, fmt::format("benchmarks[{}].filename", i), inst.plugin,
                       "has no GPU implementation in gpurt (the simulator models it: --backend sim)");
    }
    for (const HostAction& a : inst.actions) {
      if (a.kind == HostAction::Kind::kernel && !a.kernel.sm_mask.empty()) {
        throw InputError(path, fmt::format("benchmarks[{}].additional_info", i), "sm_mask",
                         "per-kernel SM masks are simulated only (--backend sim)");
      }
    }
  }
  for (const std::string& w : s.warnings) fmt::print(stderr, "gpurt: warning: {}\n", printable(w));
  check_for_gpu(s);
  return s;
}

namespace {

// Runs `fn` in a forked child and returns what it returned (or `failed`): the GPU queries below
// create a CUDA context, which must not exist in this process when the workers fork later.
std::string in_child(const std::function<std::string()>& fn, const std::string& failed) {
  int fds[2];
  if (pipe(fds) != 0) return failed + ": pipe failed";
  const pid_t pid = fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return failed + ": fork failed";
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string msg;
    try {
      msg = fn();
    } catch (const std::exception& e) {
      msg = e.what();
    }
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
  if (text.empty()) return failed;
  return text;
}

// The probe's answer: "sms N" for a usable device `device`, or the reason there is none.
std::string probe_device(int device) {
  return in_child(
      [device] {
        const ProbeResult r = probe_gpus();
        if (!r.built_with_cuda) return std::string("gpurt was built without CUDA");
        if (r.devices.empty()) return r.reason.empty() ? std::string("no CUDA device found") : r.reason;
        if (device >= static_cast<int>(r.devices.size())) {
          return fmt::format("no CUDA device {} (cuda_device / gpu_device_id); {} present", device,
                             r.devices.size());
        }
        return fmt::format("sms {}", r.devices[static_cast<std::size_t>(device)].sms);
      },
      "the GPU probe process failed");
}

// partition_backends(device), queried in a child; one line per backend: name, available,
// unit_sms, units, note, separated by tabs.
std::vector<PartitionBackendInfo> probe_partition_backends(int device) {
  const std::string text = in_child(
      [device] {
        std::string out;
        for (const PartitionBackendInfo& b : partition_backends(device)) {
          std::string note = b.note;
          std::replace(note.begin(), note.end(), '\n', ' ');
          std::replace(note.begin(), note.end(), '\t', ' ');
          out += fmt::format("{}\t{}\t{}\t{}\t{}\n", b.name, b.available ? 1 : 0, b.unit_sms, b.units, note);
        }
        return out;
      },
      "");
  std::vector<PartitionBackendInfo> list;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    PartitionBackendInfo b;
    std::string available, unit_sms, units;
    if (!std::getline(fields, b.name, '\t') || !std::getline(fields, available, '\t') ||
        !std::getline(fields, unit_sms, '\t') || !std::getline(fields, units, '\t')) {
      continue;
    }
    std::getline(fields, b.note);
    b.available = available == "1";
    b.unit_sms = std::atoi(unit_sms.c_str());
    b.units = std::atoi(units.c_str());
    list.push_back(std::move(b));
  }
  return list;
}

// What the gpu backend cannot do with a config that the shared parser accepted.
void check_for_gpu(const Scenario& s) {
  for (std::size_t i = 0; i < s.instances.size(); ++i) {
    if (s.instances[i].mps_thread_percentage && !s.use_processes) {
      throw InputError(s.source, fmt::format("benchmarks[{}].mps_thread_percentage", i),
                       fmt::format("{}", *s.instances[i].mps_thread_percentage),
                       "needs \"use_processes\": true (CUDA reads CUDA_MPS_ACTIVE_THREAD_PERCENTAGE once per "
                       "process)");
    }
  }
  const bool masked = std::any_of(s.instances.begin(), s.instances.end(),
                                  [](const ScenarioInstance& in) { return restricts(in.sm_mask); });
  // Without a usable GPU, run_bench says so; the masks are checked against a real device only.
  if (masked && probe_device(s.device).rfind("sms ", 0) == 0)
    check_sm_masks(s, probe_partition_backends(s.device));
}

}  // namespace

int device_sms_forked(int device, std::string& why) {
  if (!gpu_backend_built()) {
    why = "gpurt was built without CUDA (no nvcc at build time)";
    return 0;
  }
  const std::string probe = probe_device(device);
  if (probe.rfind("sms ", 0) != 0) {
    why = probe;
    return 0;
  }
  return std::stoi(probe.substr(4));
}

std::string gpu_backend_unavailable(const Platform& platform, int device) {
  std::string why;
  const int sms = device_sms_forked(device, why);
  if (sms == 0) return why;
  if (sms != platform.sms) {
    return fmt::format(
        "device {} has {} SMs but platform {} has {}: give --platform the preset or file of "
        "this GPU",
        device, sms, platform.id, platform.sms);
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
  const std::string why = gpu_backend_unavailable(platform, scenario.device);
  if (!why.empty()) throw InputError("--backend gpu", "no usable GPU: " + why);
  std::unique_ptr<WorkerBackend> gpu = make_gpu_backend(libraries, scenario.device);
  out.trace.scenario_name = scenario.name;
  out.trace.platform = platform.id;
  out.trace.sms = platform.sms;
  out.trace.max_threads_per_sm = platform.max_threads;
  out.trace.simulated = false;
  out.trace.instances = run_instances(scenario, platform, *gpu);
  return out;
}

}  // namespace gpurt
