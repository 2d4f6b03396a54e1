#include "gpurt/exp/rtgpu_sweep.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <fmt/format.h>

#include <memory>

#include "gpurt/core/error.hpp"

namespace gpurt {

std::vector<RtgpuSweepPoint> run_rtgpu_sweep(const RtgpuSweepOptions& o) {
  if (o.sets_per_point < 1) throw Error("sweep: sets_per_point must be >= 1");
  if (o.methods.empty()) throw Error("sweep: no method");
  const std::size_t points = o.utilizations.size();
  const auto sets = static_cast<std::size_t>(o.sets_per_point);
  const std::size_t methods = o.methods.size();
  // verdict[(p·sets + j)·methods + k]: filled in any order, reduced in a fixed order below.
  std::vector<char> verdict(points * sets * methods, 0);
  const Rng root(o.seed);
  std::unique_ptr<tbb::global_control> limit;
  if (o.threads > 0) {
    limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                  static_cast<std::size_t>(o.threads));
  }
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, points * sets), [&](const tbb::blocked_range<
                                                                           std::size_t>& r) {
    for (std::size_t index = r.begin(); index != r.end(); ++index) {
      RtgpuTable1Options g = o.generator;
      g.utilization = o.utilizations[index / sets];
      Rng rng = root.fork(index);
      const RtgpuSystem system = generate_rtgpu_table1(rng, g);
      for (std::size_t k = 0; k < methods; ++k) {
        verdict[index * methods + k] = analyse_rtgpu(system, {o.methods[k], o.search}).schedulable ? 1 : 0;
      }
    }
  });
  std::vector<RtgpuSweepPoint> out(points);
  for (std::size_t p = 0; p < points; ++p) {
    out[p].utilization = o.utilizations[p];
    out[p].sets = o.sets_per_point;
    out[p].accepted.assign(methods, 0);
    for (std::size_t j = 0; j < sets; ++j) {
      for (std::size_t k = 0; k < methods; ++k) out[p].accepted[k] += verdict[((p * sets) + j) * methods + k];
    }
  }
  return out;
}

std::string to_csv(const std::vector<RtgpuSweepPoint>& points, const std::vector<RtgpuMethod>& methods) {
  std::string out = "utilization,sets";
  for (RtgpuMethod m : methods) out += fmt::format(",{}", to_string(m));
  out += "\n";
  for (const RtgpuSweepPoint& p : points) {
    out += fmt::format("{},{}", p.utilization, p.sets);
    for (int a : p.accepted) out += fmt::format(",{}", static_cast<double>(a) / p.sets);
    out += "\n";
  }
  return out;
}

}  // namespace gpurt
