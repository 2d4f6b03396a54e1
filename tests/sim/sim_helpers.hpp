// Helpers for simulator tests: run a bundled example, find kernels, read block times in seconds.
#pragma once

#include <gtest/gtest.h>

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
