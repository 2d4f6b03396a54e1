#include "gpurt/gen/pbs_gen.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/gen/uunifast.hpp"

namespace gpurt {

std::string_view to_string(PbsSlowdown scenario) {
  switch (scenario) {
    case PbsSlowdown::small:
      return "small";
    case PbsSlowdown::large:
      return "large";
    case PbsSlowdown::mixed:
      return "mixed";
  }
  return "?";
}

std::optional<PbsSlowdown> parse_pbs_slowdown(std::string_view text) {
  for (PbsSlowdown s : {PbsSlowdown::small, PbsSlowdown::large, PbsSlowdown::mixed}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

Platform pbs_paper_platform() {
  Platform p;
  p.id = "pbs-8sm";
  p.name = "PBS seed §6.1 GPU: 8 SMs x 1024 threads x 32 blocks";
  p.sms = 8;
  p.max_threads = 1024;
  p.max_blocks = 32;
  p.registers = 65536;
  p.shared_memory = 96 * 1024;
  return p;
}

std::optional<PbsSystem> generate_pbs_system(Rng& rng, const PbsGenOptions& o) {
  if (o.tasks < 1 || o.tasks > 32) throw Error(fmt::format("pbs generator: {} tasks (1..32)", o.tasks));
  if (!(o.utilization > 0) || o.utilization > o.tasks) {
    throw Error(fmt::format("pbs generator: utilisation {} must be in (0, n]", o.utilization));
  }
  static constexpr std::int64_t kPeriodsUs[] = {400, 600, 800, 1200, 1600};
  const auto u = uunifast_discard(rng, o.tasks, o.utilization);
  if (!u) return std::nullopt;
  const auto [lo, hi] = o.slowdown == PbsSlowdown::small   ? std::pair{1.0, 1.4}
                        : o.slowdown == PbsSlowdown::large ? std::pair{1.7, 1.9}
                                                           : std::pair{1.1, 1.9};
  PbsSystem s;
  s.platform = pbs_paper_platform();
  s.time_unit = TimeUnit::us;
  const BlockShape shape{o.threads_per_block, 0, 0};
  const auto capacity = static_cast<double>(max_resident_blocks(s.platform, shape));
  for (int i = 0; i < o.tasks; ++i) {
    const double ui = (*u)[static_cast<std::size_t>(i)];
    PbsTask t;
    t.name = fmt::format("k{}", i);
    const std::int64_t period_us = kPeriodsUs[rng.uniform_int(0, 4)];
    t.period = Nanos{period_us * 1000};
    t.deadline = t.period;
    const auto wcet_us = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil(ui * static_cast<double>(period_us) - 1e-9)));
    t.wcet = Nanos{std::min(wcet_us, period_us) * 1000};
    t.threads = o.threads_per_block;
    t.blocks = static_cast<int>(std::clamp(std::ceil(ui * capacity - 1e-9), 1.0, capacity));
    t.slowdown = rng.uniform(lo, hi);
    s.tasks.push_back(std::move(t));
  }
  return s;
}

}  // namespace gpurt
