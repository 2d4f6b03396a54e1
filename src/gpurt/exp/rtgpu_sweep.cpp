#include "gpurt/exp/rtgpu_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace {

std::vector<std::string> ratio_fields(int sets, const std::vector<int>& accepted) {
  std::vector<std::string> out{std::to_string(sets)};
  for (int a : accepted) out.push_back(fmt::format("{}", static_cast<double>(a) / sets));
  return out;
}

// Per value column (methods, then "simulated" when on): the sets with a positive verdict.
std::vector<int> count_accepted(const std::vector<SweepItem>& items, std::size_t columns) {
  std::vector<int> accepted(columns, 0);
  for (const SweepItem& verdicts : items) {
    for (std::size_t k = 0; k < columns; ++k) accepted[k] += verdicts[k] > 0 ? 1 : 0;
  }
  return accepted;
}

std::size_t value_count(const RtgpuSweepOptions& o) {
  return o.methods.size() + (o.simulate_jobs > 0 ? 1 : 0);
}

// The mean of the items' last value (an accepted set's gain; NaN for a rejected one) over the
// accepted sets; NaN when none.
double mean_gain(const std::vector<SweepItem>& items) {
  double sum = 0;
  int n = 0;
  for (const SweepItem& v : items) {
    if (std::isnan(v.back())) continue;
    sum += v.back();
    ++n;
  }
  return n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

std::string gain_field(double gain) { return std::isnan(gain) ? "" : fmt::format("{}", gain); }

}  // namespace

SweepExperiment rtgpu_sweep_experiment(const RtgpuSweepOptions& o) {
  if (o.sets_per_point < 1) throw Error("sweep: sets_per_point must be >= 1");
  if (o.methods.empty()) throw Error("sweep: no method");
  SweepExperiment e;
  e.key_columns = {"utilization"};
  e.value_columns = {"sets"};
  for (RtgpuMethod m : o.methods) e.value_columns.emplace_back(to_string(m));
  if (o.simulate_jobs > 0) e.value_columns.emplace_back("simulated");
  const bool with_rtgpu =
      std::find(o.methods.begin(), o.methods.end(), RtgpuMethod::rtgpu) != o.methods.end();
  if (o.throughput_gain && !with_rtgpu) throw Error("sweep: the throughput gain needs the rtgpu method");
  if (o.throughput_gain) e.value_columns.emplace_back("throughput_gain");
  for (double u : o.utilizations) {
    e.keys.push_back({fmt::format("{}", u)});
    e.items.push_back(o.sets_per_point);
  }
  // A resumed row: the set count every point has, and acceptance ratios (the gain: any number).
  e.value_kinds.assign(e.value_columns.size(), SweepValue::ratio);
  e.value_kinds.front() = SweepValue::count;
  if (o.throughput_gain) e.value_kinds.back() = SweepValue::number;
  e.check_values = [sets = o.sets_per_point](std::size_t, const std::vector<std::string>& v)
      -> std::optional<std::pair<std::size_t, std::string>> {
    if (v[0] != std::to_string(sets))
      return std::pair{std::size_t{0},
                       fmt::format("is not the {} set(s) a point of this sweep draws (--sets)", sets)};
    return std::nullopt;
  };
  e.run_item = [o](std::size_t p, int j) {
    RtgpuTable1Options g = o.generator;
    g.utilization = o.utilizations[p];
    Rng rng = Rng(o.seed).fork(p * static_cast<std::size_t>(o.sets_per_point) + static_cast<std::size_t>(j));
    const RtgpuSystem system = generate_rtgpu_table1(rng, g);
    // Fig. 13: the analyses see average lengths; the simulator runs the generated bounds.
    const RtgpuSystem analysed =
        o.lengths == RtgpuLengths::worst
            ? system
            : average_execution_model(system, o.lengths == RtgpuLengths::average_all);
    SweepItem verdicts;
    std::optional<RtgpuResult> rtgpu;  // the allocation the simulated column runs
    for (RtgpuMethod m : o.methods) {
      RtgpuResult a = analyse_rtgpu(analysed, {.method = m,
                                               .search = o.search,
                                               .analysis_limit = o.analysis_limit,
                                               .max_seconds = o.analysis_seconds});
      verdicts.push_back(a.schedulable ? 1 : 0);
      if (m == RtgpuMethod::rtgpu) rtgpu = std::move(a);
    }
    if (o.simulate_jobs > 0) {
      if (!rtgpu)
        rtgpu = analyse_rtgpu(analysed, {.method = RtgpuMethod::rtgpu,
                                         .search = o.search,
                                         .analysis_limit = o.analysis_limit,
                                         .max_seconds = o.analysis_seconds});
      const RtgpuExecution execution =
          o.lengths == RtgpuLengths::worst ? RtgpuExecution::worst : RtgpuExecution::random;
      // The generator has consumed its draws: the next value of the set's own stream seeds the run.
      verdicts.push_back(
          rtgpu_simulated_schedulable(system, *rtgpu, o.simulate_jobs, execution, rng.next_u64()) ? 1 : 0);
    }
    if (o.throughput_gain) {
      std::vector<int> sms;
      for (const RtgpuTaskResult& t : rtgpu->tasks) sms.push_back(t.physical_sms);
      verdicts.push_back(rtgpu->schedulable ? rtgpu_throughput_gain(analysed, sms)
                                            : std::numeric_limits<double>::quiet_NaN());
    }
    return verdicts;
  };
  e.finish_point = [sets = o.sets_per_point, columns = value_count(o), gain = o.throughput_gain](
                       std::size_t, const std::vector<SweepItem>& items) {
    std::vector<std::string> fields = ratio_fields(sets, count_accepted(items, columns));
    if (gain) fields.push_back(gain_field(mean_gain(items)));
    return fields;
  };
  return e;
}

std::vector<RtgpuSweepPoint> run_rtgpu_sweep(const RtgpuSweepOptions& o) {
  SweepExperiment e = rtgpu_sweep_experiment(o);
  std::vector<RtgpuSweepPoint> out(o.utilizations.size());
  // Each point is finished once, into its own slot, so no lock is needed.
  e.finish_point = [&out, &o](std::size_t p, const std::vector<SweepItem>& items) {
    std::vector<int> counts = count_accepted(items, value_count(o));
    std::vector<std::string> fields = ratio_fields(o.sets_per_point, counts);
    out[p] = {o.utilizations[p], o.sets_per_point, {}, 0, 0.0};
    if (o.simulate_jobs > 0) {
      out[p].simulated = counts.back();
      counts.pop_back();
    }
    out[p].accepted = std::move(counts);
    if (o.throughput_gain) {
      out[p].throughput_gain = mean_gain(items);
      fields.push_back(gain_field(out[p].throughput_gain));
    }
    return fields;
  };
  run_sweep(e, {.threads = o.threads});
  return out;
}

std::string to_csv(const std::vector<RtgpuSweepPoint>& points, const RtgpuSweepOptions& options) {
  std::string out = "utilization,sets";
  for (RtgpuMethod m : options.methods) out += fmt::format(",{}", to_string(m));
  if (options.simulate_jobs > 0) out += ",simulated";
  if (options.throughput_gain) out += ",throughput_gain";
  out += "\n";
  for (const RtgpuSweepPoint& p : points) {
    std::vector<int> counts = p.accepted;
    if (options.simulate_jobs > 0) counts.push_back(p.simulated);
    out += fmt::format("{},{}", p.utilization, p.sets);
    const std::vector<std::string> fields = ratio_fields(p.sets, counts);
    for (std::size_t i = 1; i < fields.size(); ++i) out += "," + fields[i];
    if (options.throughput_gain) out += "," + gain_field(p.throughput_gain);
    out += "\n";
  }
  return out;
}

RtgpuSystem average_execution_model(const RtgpuSystem& system, bool cpu_too) {
  const auto mean = [](TimeBounds b) {
    const Nanos m{b.lo.count() / 2 + b.hi.count() / 2 + (b.lo.count() % 2 + b.hi.count() % 2 + 1) / 2};
    return TimeBounds{m, m};
  };
  RtgpuSystem out = system;
  for (RtgpuTask& t : out.tasks) {
    for (TimeBounds& c : t.copy) c = mean(c);
    if (cpu_too) {
      for (TimeBounds& c : t.cpu) c = mean(c);
    }
    for (RtgpuGpuSegment& g : t.gpu) {
      g.work = mean(g.work);
      g.alpha = (1.0 + g.alpha) / 2;
      g.overhead = Nanos{g.overhead.count() / 2 + g.overhead.count() % 2};
    }
  }
  return out;
}

bool rtgpu_simulated_schedulable(const RtgpuSystem& system, const RtgpuResult& analysis, std::int64_t jobs,
                                 RtgpuExecution execution, std::uint64_t seed) {
  if (static_cast<int>(system.tasks.size()) > system.platform.sms) return false;
  RtgpuSimOptions o;
  for (const RtgpuTaskResult& t : analysis.tasks) o.physical_sms.push_back(t.physical_sms);
  o.jobs = jobs;
  o.execution = execution;
  o.seed = seed;
  o.until_first_miss = true;
  const RtgpuSimResult r = simulate_rtgpu(system, o);
  return std::all_of(r.tasks.begin(), r.tasks.end(),
                     [](const RtgpuTaskSim& t) { return t.deadline_misses == 0; });
}

}  // namespace gpurt
