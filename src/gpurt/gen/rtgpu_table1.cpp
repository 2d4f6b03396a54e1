#include "gpurt/gen/rtgpu_table1.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/gen/uunifast.hpp"

namespace gpurt {

namespace {

constexpr std::array<double, 4> kAlpha = {1.45, 1.7, 1.7, 1.8};  // RTGPU Fig. 6 maxima

Nanos draw_ms(Rng& rng, MsRange r, double scale) {
  const double v = rng.uniform(r.lo * scale, r.hi * scale);
  return Nanos{std::llround(v * 1e6)};
}

TimeBounds with_lower(Nanos hi, double fraction) {
  return {Nanos{static_cast<std::int64_t>(std::floor(static_cast<double>(hi.count()) * fraction))}, hi};
}

}  // namespace

RtgpuSystem generate_rtgpu_table1(Rng& rng, const RtgpuTable1Options& o) {
  if (o.tasks < 1 || o.subtasks < 1 || o.physical_sms < 1)
    throw Error("table1: tasks, subtasks, SMs must be >= 1");
  if (!(o.utilization > 0) || !std::isfinite(o.utilization))
    throw Error("table1: utilization must be a finite number > 0");
  if (!(o.cpu.lo > 0 && o.cpu.lo <= o.cpu.hi && o.copy.lo >= 0 && o.copy.lo <= o.copy.hi && o.gpu.lo > 0 &&
        o.gpu.lo <= o.gpu.hi && o.suspension_scale > 0)) {
    throw Error("table1: every range needs 0 < lo <= hi (copies may start at 0) and a scale > 0");
  }
  if (!(o.launch_overhead >= 0 && o.launch_overhead <= 1))
    throw Error("table1: launch overhead must be in [0, 1]");
  if (!(o.lower_fraction > 0 && o.lower_fraction <= 1))
    throw Error("table1: lower fraction must be in (0, 1]");
  // Lengths are drawn in ms and kept in whole ns: the shortest GPU segment must stay >= 1 ns
  // (a 0 ns segment is a file analyze rtgpu refuses).
  if (o.gpu.lo * o.suspension_scale * 1e6 < 1) {
    throw InputError(
        "command line", "--suspension-scale", fmt::format("{}", o.suspension_scale),
        fmt::format("makes the shortest GPU segment ({} ms x scale) shorter than 1 ns", o.gpu.lo));
  }

  RtgpuSystem s;
  s.platform = *find_platform_preset("gtx1080ti");  // per-SM limits do not enter the analysis
  s.platform.id = fmt::format("table1-{}sm", o.physical_sms);
  s.platform.name = fmt::format("RTGPU Table 1 GPU ({} SMs)", o.physical_sms);
  s.platform.sms = o.physical_sms;
  s.platform.partition_unit = 1;
  s.time_unit = TimeUnit::ms;
  s.virtual_sms_per_sm = 2;
  const std::vector<double> u = uunifast(rng, o.tasks, o.utilization);
  const auto m = static_cast<std::size_t>(o.subtasks);
  for (int i = 0; i < o.tasks; ++i) {
    RtgpuTask t;
    t.name = fmt::format("t{}", i + 1);
    Nanos total{0};
    for (std::size_t j = 0; j < m; ++j) {
      const Nanos c = draw_ms(rng, o.cpu, 1.0);
      t.cpu.push_back(with_lower(c, o.lower_fraction));
      total += c;
    }
    for (std::size_t j = 0; j + 1 < m; ++j) {
      const Nanos in = draw_ms(rng, o.copy, o.suspension_scale);
      const Nanos out = o.two_copies ? draw_ms(rng, o.copy, o.suspension_scale) : Nanos{0};
      t.copy.push_back(with_lower(in, o.lower_fraction));
      t.copy.push_back(with_lower(out, o.lower_fraction));
      const Nanos work = draw_ms(rng, o.gpu, o.suspension_scale);
      RtgpuGpuSegment g;
      g.work = with_lower(work, o.lower_fraction);
      g.overhead = Nanos{std::llround(static_cast<double>(work.count()) * o.launch_overhead)};
      g.alpha = kAlpha[static_cast<std::size_t>(rng.uniform_int(0, kAlpha.size() - 1))];
      t.gpu.push_back(g);
      total += in + out + work;
    }
    // §6.1: D_i = (Σ CL + Σ ML + Σ G) / U_i and T_i = D_i.
    const double ui = std::max(u[static_cast<std::size_t>(i)], 1e-9);
    const double d = std::min(static_cast<double>(total.count()) / ui, 1e15);  // the model's time limit
    if (!(d >= 1)) {
      throw Error(fmt::format("table1: utilization {} is too large: task {}'s period would be {} ns",
                              o.utilization, t.name, d));
    }
    t.deadline = t.period = Nanos{static_cast<std::int64_t>(std::floor(d))};
    s.tasks.push_back(std::move(t));
  }
  // A period capped at the model's 10^15 ns makes its task's utilisation larger than drawn: say
  // so when the set's total moves (a tiny U_i at a small U only moves it by nothing).
  double actual = 0;
  for (const RtgpuTask& t : s.tasks) {
    Nanos total{0};
    for (const TimeBounds& c : t.cpu) total += c.hi;
    for (const TimeBounds& c : t.copy) total += c.hi;
    for (const RtgpuGpuSegment& g : t.gpu) total += g.work.hi;
    actual += static_cast<double>(total.count()) / static_cast<double>(t.period.count());
  }
  if (std::abs(actual - o.utilization) > 1e-3 * o.utilization) {
    throw InputError(
        "command line", o.utilization_option, fmt::format("{}", o.utilization),
        fmt::format("gives a set of utilization {:.6g}: periods are capped at 10^15 ns, too short "
                    "for its segments (raise the utilization or lower --suspension-scale)",
                    actual));
  }
  // Deadline-monotonic, ties by index.
  const auto order = [&] {
    std::vector<std::size_t> idx(s.tasks.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::size_t a, std::size_t b) { return s.tasks[a].deadline < s.tasks[b].deadline; });
    return idx;
  }();
  for (std::size_t r = 0; r < order.size(); ++r) s.tasks[order[r]].priority = static_cast<int>(r + 1);
  return s;
}

}  // namespace gpurt
