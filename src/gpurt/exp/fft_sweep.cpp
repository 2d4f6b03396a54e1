#include "gpurt/exp/fft_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/model/cufft_model.hpp"
#include "gpurt/sim/fft_sim.hpp"

namespace gpurt {

namespace {

// What one trial reports, in this order.
enum Field { be_sum, be_jobs, be_max, smlp_sum, smlp_jobs, smlp_max, be_span, smlp_span, over, kFields };

struct Point {
  std::size_t size_index = 0;
  int log2_size = 0;
  int tasks = 0;
  std::vector<int> allowed;
  Nanos bound{0};
  std::vector<KernelSpec> kernels;
};

std::string us(double ns) { return fmt::format("{:.3f}", ns / 1000); }

}  // namespace

void validate(const FftSweepOptions& o) {
  const auto bad = [](const std::string& name, const std::string& value, const std::string& problem) {
    throw InputError("options", name, value, problem);
  };
  FftProfileOptions p = o.profile;
  p.log2_sizes = o.log2_sizes;
  p.copies = 1;
  validate(p);
  if (o.task_counts.empty()) bad("tasks", "[]", "must name at least one task count");
  for (int n : o.task_counts)
    if (n < 1 || n > 1000) bad("tasks", std::to_string(n), "must be in 1..1000");
  if (o.trials < 1 || o.trials > 100'000) bad("trials", std::to_string(o.trials), "must be in 1..100000");
  if (o.jobs < 1 || o.jobs > 100'000) bad("jobs", std::to_string(o.jobs), "must be in 1..100000");
  if (o.max_gap.count() < 0) bad("max_gap", std::to_string(o.max_gap.count()), "must be >= 0");
}

SweepExperiment fft_sweep_experiment(const FftSweepOptions& o) {
  validate(o);
  validate(o.platform);
  const Platform& p = o.platform;
  auto points = std::make_shared<std::vector<Point>>();
  for (std::size_t s = 0; s < o.log2_sizes.size(); ++s) {
    // §III-C: L(i,k) from the (simulated) profile; §III-D: S_i by eq. (4); §III-B: Lemma 2.
    const std::vector<Nanos> wcet = o.backend.profile ? o.backend.profile(o.log2_sizes[s])
                                                      : profile_fft_size_sim(p, o.log2_sizes[s], o.profile);
    if (wcet.size() != static_cast<std::size_t>(p.units()))
      throw Error(fmt::format("FFT sweep: the profile of 2^{} has {} sizes, {} has {} units", o.log2_sizes[s],
                              wcet.size(), p.id, p.units()));
    CufftShape shape;
    shape.log2_size = o.log2_sizes[s];
    shape.batch = o.profile.batch;
    for (int n : o.task_counts) {
      SmlpSystem system;
      system.platform = p;
      system.rho = o.profile.rho;
      for (int i = 0; i < n; ++i) system.tasks.push_back(SmlpTask{fmt::format("fft{}", i), wcet, {}, {}, {}});
      const SmlpResult r = analyse_smlp(system);
      Point pt;
      pt.size_index = s;
      pt.log2_size = o.log2_sizes[s];
      pt.tasks = n;
      pt.allowed = r.tasks.front().allowed_units;
      pt.bound = r.tasks.front().response_bound;  // identical tasks: identical bounds
      pt.kernels = cufft_kernels(shape, p, o.profile.model);
      points->push_back(std::move(pt));
    }
  }

  SweepExperiment e;
  e.key_columns = {"backend", "log2_size", "samples", "tasks"};
  e.value_columns = {"allowed",
                     "jobs",
                     "be_avg_us",
                     "be_max_us",
                     "smlp_avg_us",
                     "smlp_max_us",
                     "bound_us",
                     "be_throughput_msps",
                     "smlp_throughput_msps",
                     "be_rt_throughput_msps",
                     "smlp_rt_throughput_msps",
                     "violations"};
  // A resumed row: the allowed sizes (several numbers), counts, and times that are statistics.
  e.value_kinds = {SweepValue::number,      SweepValue::count,       SweepValue::nonnegative,
                   SweepValue::nonnegative, SweepValue::nonnegative, SweepValue::nonnegative,
                   SweepValue::nonnegative, SweepValue::nonnegative, SweepValue::nonnegative,
                   SweepValue::nonnegative, SweepValue::nonnegative, SweepValue::count};
  e.check_values =
      [](std::size_t,
         const std::vector<std::string>& v) -> std::optional<std::pair<std::size_t, std::string>> {
    for (const std::size_t avg : {std::size_t{2}, std::size_t{4}})  // be_avg_us <= be_max_us, smlp alike
      if (!v[avg].empty() && !v[avg + 1].empty() && std::stod(v[avg]) > std::stod(v[avg + 1]))
        return std::pair{avg, std::string("is above the maximum beside it")};
    return std::nullopt;
  };
  for (const Point& pt : *points) {
    const std::int64_t samples = (std::int64_t{1} << pt.log2_size) * o.profile.batch;
    e.keys.push_back(
        {o.backend.label, std::to_string(pt.log2_size), std::to_string(samples), std::to_string(pt.tasks)});
    e.items.push_back(o.trials);
  }
  const Rng base(o.seed);
  e.run_item = [points, &o, base](std::size_t point, int item) {
    const Point& pt = (*points)[point];
    FftTasksOptions t;
    t.tasks = pt.tasks;
    t.jobs = o.jobs;
    t.kernels = pt.kernels;
    t.allowed = pt.allowed;
    t.max_gap = o.max_gap;
    // The same host gaps for both policies of a trial: the comparison differs only in policy.
    t.seed = base.fork(point).fork(static_cast<std::uint64_t>(item)).next_u64();
    SweepItem out(kFields, 0.0);
    const auto run = [&](FftPolicy policy) {
      t.policy = policy;
      return o.backend.run ? o.backend.run(pt.log2_size, o.profile.batch, t)
                           : simulate_fft_tasks(o.platform, t);
    };
    const FftTasksResult be = run(FftPolicy::best_effort);
    const FftTasksResult sm = run(FftPolicy::smlp);
    for (Nanos r : be.responses) {
      out[be_sum] += static_cast<double>(r.count());
      out[be_max] = std::max(out[be_max], static_cast<double>(r.count()));
    }
    for (Nanos r : sm.responses) {
      out[smlp_sum] += static_cast<double>(r.count());
      out[smlp_max] = std::max(out[smlp_max], static_cast<double>(r.count()));
      if (r > pt.bound) out[over] += 1;  // Observation IV-2: must never happen
    }
    out[be_jobs] = static_cast<double>(be.responses.size());
    out[smlp_jobs] = static_cast<double>(sm.responses.size());
    out[be_span] = static_cast<double>(be.makespan.count());
    out[smlp_span] = static_cast<double>(sm.makespan.count());
    return out;
  };
  e.finish_point = [points, &o](std::size_t point, const std::vector<SweepItem>& items) {
    const Point& pt = (*points)[point];
    double sums[kFields] = {};
    double be_tp = 0, sm_tp = 0, be_rt = 0, sm_rt = 0;
    int be_rt_trials = 0, sm_rt_trials = 0;  // trials with a response to divide by
    const double samples = std::ldexp(1.0, pt.log2_size) * o.profile.batch;
    for (const SweepItem& it : items) {
      for (int f : {be_sum, be_jobs, smlp_sum, smlp_jobs, over}) sums[f] += it[static_cast<std::size_t>(f)];
      sums[be_max] = std::max(sums[be_max], it[be_max]);
      sums[smlp_max] = std::max(sums[smlp_max], it[smlp_max]);
      // Samples per second: all jobs' samples over the trial's makespan (ns), in mega-samples.
      be_tp += it[be_jobs] * samples / it[be_span] * 1e3;
      sm_tp += it[smlp_jobs] * samples / it[smlp_span] * 1e3;
      // gpurt's reading of the seed's definition (§IV-A): the trial's samples over its aggregate response
      // time, the time each task spends in its jobs' responses (their sum over N): N x samples / mean
      // response.
      if (it[be_sum] > 0) {
        be_rt += pt.tasks * samples / (it[be_sum] / it[be_jobs]) * 1e3;
        ++be_rt_trials;
      }
      if (it[smlp_sum] > 0) {
        sm_rt += pt.tasks * samples / (it[smlp_sum] / it[smlp_jobs]) * 1e3;
        ++sm_rt_trials;
      }
    }
    const double n = static_cast<double>(items.size());
    std::string allowed;
    for (int k : pt.allowed) allowed += (allowed.empty() ? "" : " ") + std::to_string(k);
    return std::vector<std::string>{
        allowed, fmt::format("{}", sums[be_jobs]), us(sums[be_sum] / sums[be_jobs]), us(sums[be_max]),
        us(sums[smlp_sum] / sums[smlp_jobs]), us(sums[smlp_max]), us(static_cast<double>(pt.bound.count())),
        fmt::format("{:.3f}", be_tp / n), fmt::format("{:.3f}", sm_tp / n),
        // No trial measured a response (a GPU run's clock): no number.
        be_rt_trials > 0 ? fmt::format("{:.3f}", be_rt / be_rt_trials) : "",
        sm_rt_trials > 0 ? fmt::format("{:.3f}", sm_rt / sm_rt_trials) : "", fmt::format("{}", sums[over])};
  };
  return e;
}

}  // namespace gpurt
