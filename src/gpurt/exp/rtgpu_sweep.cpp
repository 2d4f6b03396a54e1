#include "gpurt/exp/rtgpu_sweep.hpp"

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace {

std::vector<std::string> ratio_fields(int sets, const std::vector<int>& accepted) {
  std::vector<std::string> out{std::to_string(sets)};
  for (int a : accepted) out.push_back(fmt::format("{}", static_cast<double>(a) / sets));
  return out;
}

std::vector<int> count_accepted(const std::vector<SweepItem>& items, std::size_t methods) {
  std::vector<int> accepted(methods, 0);
  for (const SweepItem& verdicts : items) {
    for (std::size_t k = 0; k < methods; ++k) accepted[k] += verdicts[k] > 0 ? 1 : 0;
  }
  return accepted;
}

}  // namespace

SweepExperiment rtgpu_sweep_experiment(const RtgpuSweepOptions& o) {
  if (o.sets_per_point < 1) throw Error("sweep: sets_per_point must be >= 1");
  if (o.methods.empty()) throw Error("sweep: no method");
  SweepExperiment e;
  e.key_columns = {"utilization"};
  e.value_columns = {"sets"};
  for (RtgpuMethod m : o.methods) e.value_columns.emplace_back(to_string(m));
  for (double u : o.utilizations) {
    e.keys.push_back({fmt::format("{}", u)});
    e.items.push_back(o.sets_per_point);
  }
  e.run_item = [o](std::size_t p, int j) {
    RtgpuTable1Options g = o.generator;
    g.utilization = o.utilizations[p];
    Rng rng = Rng(o.seed).fork(p * static_cast<std::size_t>(o.sets_per_point) + static_cast<std::size_t>(j));
    const RtgpuSystem system = generate_rtgpu_table1(rng, g);
    SweepItem verdicts;
    for (RtgpuMethod m : o.methods)
      verdicts.push_back(analyse_rtgpu(system, {m, o.search}).schedulable ? 1 : 0);
    return verdicts;
  };
  e.finish_point = [sets = o.sets_per_point, methods = o.methods.size()](
                       std::size_t, const std::vector<SweepItem>& items) {
    return ratio_fields(sets, count_accepted(items, methods));
  };
  return e;
}

std::vector<RtgpuSweepPoint> run_rtgpu_sweep(const RtgpuSweepOptions& o) {
  SweepExperiment e = rtgpu_sweep_experiment(o);
  std::vector<RtgpuSweepPoint> out(o.utilizations.size());
  // Each point is finished once, into its own slot, so no lock is needed.
  e.finish_point = [&out, &o](std::size_t p, const std::vector<SweepItem>& items) {
    out[p] = {o.utilizations[p], o.sets_per_point, count_accepted(items, o.methods.size())};
    return ratio_fields(out[p].sets, out[p].accepted);
  };
  run_sweep(e, {.threads = o.threads});
  return out;
}

std::string to_csv(const std::vector<RtgpuSweepPoint>& points, const std::vector<RtgpuMethod>& methods) {
  std::string out = "utilization,sets";
  for (RtgpuMethod m : methods) out += fmt::format(",{}", to_string(m));
  out += "\n";
  for (const RtgpuSweepPoint& p : points) {
    out += fmt::format("{},{}", p.utilization, p.sets);
    const std::vector<std::string> fields = ratio_fields(p.sets, p.accepted);
    for (std::size_t i = 1; i < fields.size(); ++i) out += "," + fields[i];
    out += "\n";
  }
  return out;
}

}  // namespace gpurt
