// Helpers for simulator tests: run a bundled example, find kernels, read block times in seconds.
#pragma once

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "gpurt/core/error.hpp"
#include "gpurt/sim/simulate.hpp"

namespace gpurt::test {

inline Platform platform_from(const std::string& id_or_file) {
  if (const Platform* p = find_platform_preset(id_or_file)) return *p;
  const Json doc = load_json_file(std::string(GPURT_SOURCE_DIR) + "/" + id_or_file);
  return parse_platform(JsonNode(doc, id_or_file));
}

/// A preset with the ideal performance model: for tests of the queueing rules' exact timelines.
inline Platform ideal_preset(const std::string& id) {
  Platform p = *find_platform_preset(id);
  p.model = PerfParams{};
  return p;
}

inline SimResult run_example(const std::string& config, const std::string& platform) {
  const Platform p = platform_from(platform);
  const Scenario s = load_scenario(std::string(GPURT_SOURCE_DIR) + "/examples/sim/" + config, p);
  return simulate(s, p);
}

/// One timer_spin instance of an examiner config: `blocks` blocks of `threads` threads spinning
/// `ns`, released at `release` seconds; `extra` adds keys (e.g. `, "stream_priority": -1`).
inline std::string spin(const std::string& label, int threads, int blocks, long long ns, double release = 0,
                        const std::string& extra = "", const std::string& plugin = "timer_spin") {
  return fmt::format(R"({{"filename": "{6}.so", "log_name": "{0}.json", "label": "{0}",
      "thread_count": {1}, "block_count": {2}, "additional_info": {3}, "release_time": {4}{5}}})",
                     label, threads, blocks, ns, release, extra, plugin);
}

/// The same in the legacy NULL stream (timer_spin_default_stream).
inline std::string null_spin(const std::string& label, int threads, int blocks, long long ns,
                             double release = 0) {
  return spin(label, threads, blocks, ns, release, "", "timer_spin_default_stream");
}

/// A config of one iteration of `benchmarks`; `top` adds top-level keys.
inline std::string scenario(const std::vector<std::string>& benchmarks, const std::string& top = "") {
  std::string list;
  for (const auto& b : benchmarks) list += (list.empty() ? "" : ", ") + b;
  return fmt::format(R"({{"name": "t", "max_iterations": 1, "max_time": 0{}, "benchmarks": [{}]}})", top,
                     list);
}

inline SimResult run_text(const std::string& json, const Platform& p, const SimulateOptions& o = {}) {
  return simulate(parse_scenario(parse_json(json, "test.json"), "test.json", p), p, o);
}

/// The `n`-th kernel named `name` (in instance, iteration, launch order).
inline const KernelRecord& kernel(const SimResult& r, const std::string& name, std::size_t n = 0) {
  for (const auto& inst : r.trace.instances)
    for (const auto& it : inst.iterations)
      for (const auto& k : it.kernels)
        if (k.name == name && n-- == 0) return k;
  throw Error("no kernel " + name);
}

inline double s(Nanos t) { return from_nanos(t, TimeUnit::s); }

inline std::vector<double> starts(const KernelRecord& k) {
  std::vector<double> out;
  for (const auto& b : k.blocks) out.push_back(s(b.start));
  return out;
}
inline std::vector<int> sms(const KernelRecord& k) {
  std::vector<int> out;
  for (const auto& b : k.blocks) out.push_back(b.sm);
  return out;
}
inline double first_start(const KernelRecord& k) {
  double m = 1e300;
  for (const auto& b : k.blocks) m = std::min(m, s(b.start));
  return m;
}
inline double last_end(const KernelRecord& k) {
  double m = -1;
  for (const auto& b : k.blocks) m = std::max(m, s(b.end));
  return m;
}

}  // namespace gpurt::test
