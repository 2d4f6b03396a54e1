#include "gpurt/exp/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/pbs_task.hpp"
#include "gpurt/sim/simulate.hpp"

namespace gpurt {

namespace {

// What is compared: per instance, the 10th percentile, the mean and the 90th percentile of its
// block durations (ns), and the 10th and 90th percentiles over its kernel launches of a launch's
// mean block duration. The block percentiles separate variability from the costs that shift
// every block; the launch percentiles separate the variability a launch's blocks share
// (kernel_jitter) from the per-block kind (jitter), which averages out within a launch of many
// blocks. Unlike a minimum or maximum, percentiles do not hang on one draw.
// When a dispatch parameter is fitted, also the 10th percentile, mean and 90th percentile of
// the instance's kernel spans (first block start to last block end, both on the GPU's clock):
// the dispatch rules change when blocks start, not how long a block runs.
constexpr std::size_t kBlockStats = 5, kSpanStats = 3;
constexpr const char* kStatNames[kBlockStats + kSpanStats] = {
    "p10", "mean", "p90", "launch_p10", "launch_p90", "span_p10", "span_mean", "span_p90"};
using Stats = std::vector<double>;

double percentile(const std::vector<double>& sorted, double q) {
  return sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))];
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (const double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

// Per instance (by log name).
std::map<std::string, Stats> block_statistics(const Trace& trace, bool spans) {
  std::map<std::string, Stats> out;
  for (const InstanceTrace& inst : trace.instances) {
    std::vector<double> d, launches, span;
    for (const IterationRecord& it : inst.iterations)
      for (const KernelRecord& k : it.kernels) {
        if (k.blocks.empty()) continue;
        double launch = 0;
        Nanos first = k.blocks.front().start, last = k.blocks.front().end;
        for (const BlockRecord& b : k.blocks) {
          d.push_back(static_cast<double>((b.end - b.start).count()));
          launch += d.back();
          first = std::min(first, b.start);
          last = std::max(last, b.end);
        }
        launches.push_back(launch / static_cast<double>(k.blocks.size()));
        span.push_back(static_cast<double>((last - first).count()));
      }
    if (d.empty()) continue;
    const double block_mean = mean(d);
    std::sort(d.begin(), d.end());
    std::sort(launches.begin(), launches.end());
    std::sort(span.begin(), span.end());
    // An instance whose blocks (or launches) mostly took no time on the clock has nothing to
    // compare on the log scale: it counts as missing.
    if (percentile(d, 0.1) <= 0 || (spans && percentile(span, 0.1) <= 0)) continue;
    Stats s = {percentile(d, 0.1), block_mean, percentile(d, 0.9), percentile(launches, 0.1),
               percentile(launches, 0.9)};
    if (spans) s.insert(s.end(), {percentile(span, 0.1), mean(span), percentile(span, 0.9)});
    out[inst.log_name] = std::move(s);
  }
  return out;
}

// A fittable parameter: its field in PerfParams (none: the walk latency, a property of the
// configs' random_walk blocks), its search interval [0, upper] (0: the platform's most resident
// blocks, see upper_of), and whether it is a whole number (searched exhaustively) or changes
// when blocks start (kernel spans are compared when such a parameter is fitted).
struct Fittable {
  const char* name;
  double PerfParams::*field;
  double upper;
  bool whole, dispatch;
};
constexpr const char* kWalkLatency = "random_walk_ns_per_access";
// The Nelder-Mead polish: its first simplex's edge (of each coordinate's interval) and its most
// iterations.
constexpr double kSimplexStep = 0.02;
constexpr int kSimplexIterations = 200;
constexpr Fittable kFittable[] = {
    {"switch_cost", &PerfParams::switch_cost, 1, false, false},
    {"coresidence_cost", &PerfParams::coresidence_cost, 1, false, false},
    {"spread_cost", &PerfParams::spread_cost, 1, false, false},
    {"jitter", &PerfParams::jitter, 1, false, false},
    {"kernel_jitter", &PerfParams::kernel_jitter, 1, false, false},
    {"wave_release", &PerfParams::wave_release, 1, false, true},
    {"block_dispatch_ns", &PerfParams::block_dispatch_ns, kMaxFittedDispatchNs, false, true},
    {"cu_lock_threshold", &PerfParams::cu_lock_threshold, kMaxFittedLockThreshold, true, true},
    // Measured from the lone configs, not searched (measure_lone_bound below).
    {"lone_kernel_blocks", &PerfParams::lone_kernel_blocks, 0, true, true},
    {"memory_bandwidth", &PerfParams::memory_bandwidth, 0, false, false},
    {kWalkLatency, nullptr, kMaxFittedWalkNs, false, false},
};

const Fittable& fittable(const std::string& name) {
  for (const Fittable& f : kFittable)
    if (name == f.name) return f;
  throw InputError("calibrate", "fit", name,
                   "is not a fittable parameter (switch_cost, coresidence_cost, spread_cost, jitter, "
                   "kernel_jitter, wave_release, block_dispatch_ns, cu_lock_threshold, lone_kernel_blocks, "
                   "memory_bandwidth, "
                   "random_walk_ns_per_access)");
}

double& field(PerfParams& p, const std::string& name) { return p.*(fittable(name).field); }

// memory_bandwidth counts memory-bound blocks; at the platform's most resident blocks or more
// it never binds, so that is the top of its interval.
double upper_of(const Fittable& f, const Platform& p) {
  return f.upper > 0 ? f.upper : static_cast<double>(p.sms) * std::max(1, p.max_blocks);
}

bool walks(const ScenarioInstance& inst) {
  return inst.plugin == "random_walk" || inst.plugin == "inorder_walk";
}

// A random_walk block runs its reads times the latency of one access.
void set_walk_latency(Scenario& scenario, double walk_ns) {
  for (ScenarioInstance& inst : scenario.instances)
    if (walks(inst))
      for (HostAction& a : inst.actions)
        if (a.kind == HostAction::Kind::kernel)  // reads <= 2^40, walk_ns <= 10^4: no overflow
          // At most gpurt's bound on every time, as the config loader allows (2^40 reads at the
          // interval's top would make a block of 127 days).
          a.kernel.block_time = Nanos{std::clamp<std::int64_t>(
              std::llround(static_cast<double>(inst.walk_reads) * walk_ns), 1, kMaxScenarioTime.count())};
}

bool memory_bound(const CalibrationCase& c) {
  for (const ScenarioInstance& inst : c.scenario.instances)
    for (const HostAction& a : inst.actions)
      if (a.kind == HostAction::Kind::kernel && a.kernel.memory_fraction > 0) return true;
  return false;
}

bool memory_parameter(const std::string& name) { return name == "memory_bandwidth" || name == kWalkLatency; }

// A measurement taken with another config (or a folder mixed up with another's) would be fitted
// without complaint and give nonsense: every measured kernel of an instance must have the block
// and thread counts of one of the config's kernels of that instance, and record that many
// blocks when it records any.
// Where a case's measurement lies, as its errors name it: the result folder, or the case name.
std::string measured_where(const CalibrationCase& c) {
  return c.measured_folder.empty() ? c.name : c.measured_folder;
}

void check_measured_against_config(const CalibrationCase& c, const Platform& p) {
  const std::string where = measured_where(c);
  const std::string config = c.config_file.empty() ? c.name : c.config_file;
  // Result files gpurt wrote state the GPU's SM count (gpurt.sms; the examiner's own files do
  // not): measured on another GPU, they would be fitted onto this one's SMs without a word.
  if (c.measured.recorded_sms > 0 && c.measured.recorded_sms != p.sms)
    throw InputError(where, "gpurt.sms", std::to_string(c.measured.recorded_sms),
                     fmt::format("the result files were measured on a GPU with {} SMs, but --platform \"{}\" "
                                 "has {}: calibrate the platform of the GPU that measured them",
                                 c.measured.recorded_sms, p.id, p.sms));
  // Every result file is one instance's: a file no instance writes (another config's, a second
  // run under another name) would otherwise be read, counted and then ignored without a word.
  for (const InstanceTrace& m : c.measured.instances) {
    const bool known = std::any_of(c.scenario.instances.begin(), c.scenario.instances.end(),
                                   [&](const ScenarioInstance& inst) { return inst.log_name == m.log_name; });
    if (!known) {
      // The same file name in a sub-folder: a second run of an instance, not a stranger.
      const auto twin = std::find_if(c.scenario.instances.begin(), c.scenario.instances.end(),
                                     [&](const ScenarioInstance& inst) {
                                       return std::filesystem::path(inst.log_name).filename() ==
                                              std::filesystem::path(m.log_name).filename();
                                     });
      if (twin != c.scenario.instances.end())
        throw InputError(
            (std::filesystem::path(where) / m.log_name).string(),
            fmt::format("is a second result file of instance {} of {} (its own is {}): the "
                        "folder must hold one run of the config; move the other run out",
                        twin->label.empty() ? twin->log_name : twin->label, config, twin->log_name));
      std::string names;
      for (const ScenarioInstance& inst : c.scenario.instances)
        names += (names.empty() ? "" : ", ") + inst.log_name;
      throw InputError(
          (std::filesystem::path(where) / m.log_name).string(),
          fmt::format("no instance of {} writes this result file (its instances' log names: {}); "
                      "the folder must hold that config's result files only",
                      config, names));
    }
  }
  for (const ScenarioInstance& inst : c.scenario.instances) {
    std::vector<std::pair<int, int>> shapes;  // (blocks, threads) of the config's kernels
    for (const HostAction& a : inst.actions)
      if (a.kind == HostAction::Kind::kernel) shapes.emplace_back(a.kernel.blocks, a.kernel.shape.threads);
    for (const InstanceTrace& m : c.measured.instances) {
      if (m.log_name != inst.log_name) continue;
      // A run of a fixed number of iterations records each: fewer is a cut or interrupted run
      // (a spread measurement cut to 1 of its 80 launches still "fitted" kernel_jitter), more
      // another config's. Runs bounded by time, and task_host members, are not counted.
      if (inst.max_iterations > 0 && inst.max_time.count() == 0 && inst.parent < 0 &&
          static_cast<std::int64_t>(m.iterations.size()) != inst.max_iterations)
        throw InputError(where, inst.log_name, fmt::format("{} iterations", m.iterations.size()),
                         fmt::format("the config runs max_iterations = {} of this instance: a cut or "
                                     "interrupted run, or another config's?",
                                     inst.max_iterations));
      for (const IterationRecord& it : m.iterations)
        for (const KernelRecord& k : it.kernels) {
          if (std::find(shapes.begin(), shapes.end(), std::pair{k.block_count, k.thread_count}) ==
              shapes.end())
            throw InputError(
                where, inst.log_name, fmt::format("{} blocks of {} threads", k.block_count, k.thread_count),
                fmt::format("no kernel of this instance in {} has that shape: measured with another "
                            "config?",
                            c.config_file.empty() ? c.name : c.config_file));
          if (!k.blocks.empty() && static_cast<std::int64_t>(k.blocks.size()) != k.block_count)
            throw InputError(
                where, inst.log_name, fmt::format("{} block times", k.blocks.size()),
                fmt::format("a kernel of {} blocks records another number of block times", k.block_count));
          // An NVIDIA block's SM id (%smid) is below the GPU's SM count; an AMD one, as a HIP
          // port may record it, need not be (SE and CU bit fields), so it is not checked.
          for (const BlockRecord& b : k.blocks)
            if (p.vendor != Vendor::amd && b.sm >= p.sms)
              throw InputError(where, inst.log_name, fmt::format("block_smids {}", b.sm),
                               fmt::format("a block ran on SM {}, but --platform \"{}\" has {} SMs (0..{}): "
                                           "measured on another GPU?",
                                           b.sm, p.id, p.sms, p.sms - 1));
        }
    }
  }
}

}  // namespace

std::vector<std::string> amd_dispatch_fit() {
  return {"lone_kernel_blocks", "wave_release", "cu_lock_threshold", "block_dispatch_ns", "kernel_jitter"};
}

double CalibrationStatistic::log_error() const { return std::log(fitted_ns / measured_ns); }

namespace {

// The fit of every parameter of `o.fit` at once, on every case (calibrate below may split it).
CalibrationResult fit_together(const Platform& base, const std::vector<CalibrationCase>& cases,
                               const CalibrateOptions& o, bool spans_too) {
  if (cases.empty()) throw InputError("calibrate", "cases", "[]", "needs at least one calibration config");
  // The measured statistics, in the order the simulation reports them.
  const bool spans = spans_too;  // a dispatch parameter is fitted: compare kernel spans too
  const bool fit_walk = std::count(o.fit.begin(), o.fit.end(), kWalkLatency) > 0;
  const bool fit_bandwidth = std::count(o.fit.begin(), o.fit.end(), "memory_bandwidth") > 0;
  double walk_start = 0;  // the latency the first config that walks memory assumes
  for (const CalibrationCase& c : cases)
    for (const ScenarioInstance& inst : c.scenario.instances)
      if (walks(inst) && walk_start == 0) walk_start = c.scenario.sim.random_walk_ns_per_access;
  if (fit_walk && walk_start == 0)
    throw InputError("calibrate", "fit", kWalkLatency, "no calibration config walks memory (random_walk)");
  if (fit_bandwidth && std::none_of(cases.begin(), cases.end(), memory_bound))
    throw InputError("calibrate", "fit", "memory_bandwidth",
                     "no calibration config has memory-bound blocks (random_walk, or a \"memory_fraction\")");
  std::vector<std::string> names;
  std::vector<Stats> measured;
  for (const CalibrationCase& c : cases) {
    check_measured_against_config(c, base);
    const auto stats = block_statistics(c.measured, spans);
    for (const ScenarioInstance& inst : c.scenario.instances) {
      const auto found = stats.find(inst.log_name);
      if (found == stats.end()) {
        const auto file = std::find_if(c.measured.instances.begin(), c.measured.instances.end(),
                                       [&](const InstanceTrace& m) { return m.log_name == inst.log_name; });
        const std::string where = measured_where(c);
        if (file == c.measured.instances.end())
          throw InputError(where,
                           fmt::format("has no {}, the result file of this config's instance (is it the "
                                       "right result folder?)",
                                       inst.log_name));
        throw InputError((std::filesystem::path(where) / inst.log_name).string(),
                         "records no block of positive duration (its kernels have no block times, or most "
                         "of them took no time)");
      }
      names.push_back(c.name + "/" + (inst.label.empty() ? inst.log_name : inst.label));
      measured.push_back(found->second);
    }
  }
  CalibrationResult result;
  result.params = base.model;
  for (const std::string& name : o.fit)
    if (fittable(name).field) field(result.params, name) = 0;

  // Simulated statistics under `params` (and, when it is fitted, the walks' latency `walk_ns`:
  // a random_walk block runs its reads times it), in the order of `measured`.
  std::vector<Scenario> scenarios;
  for (const CalibrationCase& c : cases) scenarios.push_back(c.scenario);
  const auto simulate_all = [&](const PerfParams& params, double walk_ns) {
    Platform p = base;
    p.model = params;
    SimulateOptions so;
    so.model_seed = o.seed;
    std::vector<Stats> out;
    for (Scenario& scenario : scenarios) {
      if (fit_walk) set_walk_latency(scenario, walk_ns);
      const auto stats = block_statistics(simulate(scenario, p, so).trace, spans);
      for (const ScenarioInstance& inst : scenario.instances) out.push_back(stats.at(inst.log_name));
    }
    ++result.evaluations;
    return out;
  };
  const auto cost = [&](const PerfParams& params, double walk_ns) {
    const auto sim = simulate_all(params, walk_ns);
    double sum = 0;
    for (std::size_t i = 0; i < sim.size(); ++i)
      for (std::size_t s = 0; s < sim[i].size(); ++s)
        sum += std::pow(std::log(sim[i][s] / measured[i][s]), 2);
    return sum;
  };

  // The search coordinates: the fitted parameters themselves, except that jitter and
  // kernel_jitter, when both are fitted, are searched as their sum and kernel_jitter's share of
  // it. A config of one-block kernels sees only the sum (per-block and per-launch draws are the
  // same draw there), so in the parameters themselves the optimum lies in a diagonal valley that
  // one-at-a-time searches cross only slowly; the sum and the share are separately identified
  // (the sum by every block spread, the share by the launch spreads of many-block kernels).
  const bool both_jitters = std::count(o.fit.begin(), o.fit.end(), "jitter") > 0 &&
                            std::count(o.fit.begin(), o.fit.end(), "kernel_jitter") > 0;
  std::vector<std::string> coords;
  for (const std::string& name : o.fit)
    if (!both_jitters || (name != "jitter" && name != "kernel_jitter")) coords.push_back(name);
  if (both_jitters) coords.insert(coords.begin(), {"jitter_total", "kernel_jitter_share"});
  // The walks' latency last but for the bandwidth: both act only on memory-bound blocks.
  for (const char* last : {kWalkLatency, "memory_bandwidth"}) {
    const auto at = std::find(coords.begin(), coords.end(), last);
    if (at == coords.end()) continue;
    coords.erase(at);
    coords.push_back(last);
  }
  // Every coordinate is searched as a fraction of its parameter's interval, and starts at 0;
  // the walks' latency at the configs' own value.
  std::map<std::string, double> x;
  for (const std::string& c : coords) x[c] = 0;
  if (fit_walk) x[kWalkLatency] = walk_start / kMaxFittedWalkNs;
  const auto params_at = [&](const std::map<std::string, double>& at) {
    PerfParams p = result.params;
    for (const auto& [name, value] : at) {
      if (name == "jitter_total" || name == "kernel_jitter_share" || name == kWalkLatency) continue;
      const Fittable& f = fittable(name);
      const double upper = upper_of(f, base);
      p.*f.field = f.whole ? std::round(value * upper) : value * upper;
      // A platform file takes a bandwidth of 0 (unlimited) or at least kMinMemoryBandwidth.
      if (f.field == &PerfParams::memory_bandwidth && p.memory_bandwidth > 0)
        p.memory_bandwidth = std::max(p.memory_bandwidth, kMinMemoryBandwidth);
    }
    if (both_jitters) {
      p.jitter = at.at("jitter_total") * (1 - at.at("kernel_jitter_share"));
      p.kernel_jitter = at.at("jitter_total") * at.at("kernel_jitter_share");
    }
    return p;
  };
  const auto walk_at = [&](const std::map<std::string, double>& at) {
    return fit_walk ? std::max(1.0, at.at(kWalkLatency) * kMaxFittedWalkNs) : 0.0;
  };
  const auto cost_at = [&](const std::map<std::string, double>& at) {
    return cost(params_at(at), walk_at(at));
  };

  // A golden-section search of coordinate `c` over [centre - w, centre + w] (within [0, 1])
  // from `point`: the best value it saw and its cost.
  const auto golden = [&](const std::map<std::string, double>& point, const std::string& c, double w,
                          int iterations) {
    auto trial = point;
    double lo = std::max(0.0, point.at(c) - w), hi = std::min(1.0, point.at(c) + w);
    constexpr double g = 0.6180339887498949;
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    trial[c] = a;
    double fa = cost_at(trial);
    trial[c] = b;
    double fb = cost_at(trial);
    for (int i = 0; i < iterations; ++i) {
      if (fa <= fb) {
        hi = b, b = a, fb = fa, a = hi - g * (hi - lo);
        trial[c] = a;
        fa = cost_at(trial);
      } else {
        lo = a, a = b, fa = fb, b = lo + g * (hi - lo);
        trial[c] = b;
        fb = cost_at(trial);
      }
    }
    return fa <= fb ? std::pair{a, fa} : std::pair{b, fb};
  };
  const auto whole = [&](const std::string& c) {
    return c != "jitter_total" && c != "kernel_jitter_share" && fittable(c).whole;
  };
  const auto whole_range = [&](const std::string& c, int around, int reach) {
    const int upper = static_cast<int>(fittable(c).upper);
    return std::pair{std::max(0, around - reach), std::min(upper, around + reach)};
  };
  const auto whole_at = [&](const std::map<std::string, double>& point, const std::string& c) {
    return static_cast<int>(std::round(point.at(c) * fittable(c).upper));
  };

  // Coordinate descent: a golden-section search over the interval for each coordinate in turn,
  // then a narrower one around the result on later passes; a whole-number parameter tries every
  // value on the first pass and its neighbours (+-2) on later ones. Deterministic (fixed seed,
  // fixed order).
  double best = cost_at(x);
  std::map<std::string, double> width;
  for (const std::string& c : coords) width[c] = 1;
  for (int sweep = 0; sweep < std::max(1, o.sweeps); ++sweep) {
    if (sweep == std::max(1, o.sweeps) / 2)
      for (const std::string& c : coords) width[c] = 0.25;  // a second round from the first's result
    for (const std::string& c : coords) {
      if (whole(c)) {
        const int at = whole_at(x, c);
        const auto [from, to] = whole_range(c, at, sweep == 0 ? static_cast<int>(fittable(c).upper) : 2);
        auto trial = x;
        for (int k = from; k <= to; ++k) {
          if (k == at) continue;
          trial[c] = static_cast<double>(k) / fittable(c).upper;
          const double f = cost_at(trial);
          if (f < best) {
            best = f;
            x[c] = trial[c];
          }
        }
        continue;
      }
      const auto [candidate, fc] = golden(x, c, width[c], 24);
      if (fc < best) {
        best = fc;
        x[c] = candidate;
      }
      width[c] = std::max(0.01, width[c] / 2);
    }
  }
  // A whole-number parameter couples with the continuous ones (the CU lock counts releases, and
  // the wave release sets how many there are and when), so the descent can stop a few values
  // off with the others compensating. Polish: each value within 3 of the fit's is tried with
  // every continuous coordinate searched again around its value (+-0.25 of its interval), and
  // replaces the fit where it costs less; repeated once more if one did. (With no continuous
  // coordinate the descent has already costed every value.)
  const bool continuous =
      std::any_of(coords.begin(), coords.end(), [&](const std::string& c) { return !whole(c); });
  for (int round = 0; round < 2 && continuous; ++round) {
    bool moved = false;
    for (const std::string& c : coords) {
      if (!whole(c)) continue;
      const int at = whole_at(x, c);
      const auto [from, to] = whole_range(c, at, 3);
      auto best_point = x;
      double best_cost = best;
      for (int k = from; k <= to; ++k) {
        if (k == at) continue;
        auto t = x;
        t[c] = static_cast<double>(k) / fittable(c).upper;
        double f = cost_at(t);
        for (const std::string& d : coords) {
          if (whole(d)) continue;
          const auto [v, fv] = golden(t, d, 0.25, 12);
          if (fv < f) {
            f = fv;
            t[d] = v;
          }
        }
        if (f < best_cost) {
          best_cost = f;
          best_point = t;
        }
      }
      if (best_cost < best) {
        best = best_cost;
        x = best_point;
        moved = true;
      }
    }
    if (!moved) break;
  }
  // Coordinate descent moves along one axis at a time, so where two parameters trade against
  // each other (switch_cost and coresidence_cost: the coresidence config pays both) it stops in
  // the valley short of the optimum. A Nelder-Mead search over the continuous coordinates, from
  // a small simplex around the result, follows such a valley; its point replaces the result
  // only where it costs less.
  std::vector<std::string> free;
  for (const std::string& c : coords)
    if (!whole(c)) free.push_back(c);
  if (!free.empty()) {
    const std::size_t n = free.size();
    const auto point = [&](const std::vector<double>& v) {
      auto t = x;
      for (std::size_t i = 0; i < n; ++i) t[free[i]] = std::clamp(v[i], 0.0, 1.0);
      return t;
    };
    std::vector<std::vector<double>> simplex(n + 1, std::vector<double>(n));
    for (std::size_t i = 0; i < n; ++i) simplex[0][i] = x.at(free[i]);
    for (std::size_t k = 1; k <= n; ++k) {
      simplex[k] = simplex[0];
      double& v = simplex[k][k - 1];
      v = v + kSimplexStep <= 1 ? v + kSimplexStep : v - kSimplexStep;
    }
    std::vector<double> f(n + 1);
    f[0] = best;
    for (std::size_t k = 1; k <= n; ++k) f[k] = cost_at(point(simplex[k]));
    const auto along = [&](const std::vector<double>& from, const std::vector<double>& to, double t) {
      std::vector<double> out(n);
      for (std::size_t i = 0; i < n; ++i) out[i] = std::clamp(from[i] + t * (to[i] - from[i]), 0.0, 1.0);
      return out;
    };
    for (int iteration = 0; iteration < kSimplexIterations; ++iteration) {
      std::vector<std::size_t> order(n + 1);
      for (std::size_t k = 0; k <= n; ++k) order[k] = k;
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return f[a] < f[b]; });
      const std::size_t lo = order[0], hi = order[n], second = order[n - 1];
      if (f[hi] - f[lo] <= 1e-12 * (1 + f[lo])) break;
      std::vector<double> centre(n, 0.0);
      for (std::size_t k = 0; k <= n; ++k)
        if (k != hi)
          for (std::size_t i = 0; i < n; ++i) centre[i] += simplex[k][i] / static_cast<double>(n);
      const auto reflected = along(simplex[hi], centre, 2);
      const double fr = cost_at(point(reflected));
      if (fr < f[lo]) {
        const auto expanded = along(simplex[hi], centre, 3);
        const double fe = cost_at(point(expanded));
        simplex[hi] = fe < fr ? expanded : reflected;
        f[hi] = std::min(fe, fr);
      } else if (fr < f[second]) {
        simplex[hi] = reflected;
        f[hi] = fr;
      } else {
        const auto contracted = along(simplex[hi], centre, fr < f[hi] ? 1.5 : 0.5);
        const double fc = cost_at(point(contracted));
        if (fc < std::min(fr, f[hi])) {
          simplex[hi] = contracted;
          f[hi] = fc;
        } else {  // shrink towards the best vertex
          for (std::size_t k = 0; k <= n; ++k) {
            if (k == lo) continue;
            simplex[k] = along(simplex[lo], simplex[k], 0.5);
            f[k] = cost_at(point(simplex[k]));
          }
        }
      }
    }
    const std::size_t lo = static_cast<std::size_t>(std::min_element(f.begin(), f.end()) - f.begin());
    if (f[lo] < best) {
      best = f[lo];
      x = point(simplex[lo]);
    }
  }
  result.params = params_at(x);
  const double walk = walk_at(x);
  if (fit_walk) result.random_walk_ns_per_access = walk;
  const auto fitted = simulate_all(result.params, walk);
  double sum = 0;
  for (std::size_t i = 0; i < fitted.size(); ++i)
    for (std::size_t s = 0; s < fitted[i].size(); ++s) {
      result.residuals.push_back({names[i] + "/" + kStatNames[s], measured[i][s], fitted[i][s]});
      sum += std::pow(result.residuals.back().log_error(), 2);
    }
  result.rms_log_error = std::sqrt(sum / static_cast<double>(result.residuals.size()));
  // The measured statistics are finite and positive (block_statistics keeps no other), so a
  // fit that is not a number is a defect, never a platform file to write.
  if (!std::isfinite(result.rms_log_error))
    throw Error(fmt::format("calibrate: the fit's residual is {} (internal error)", result.rms_log_error));
  return result;
}

// A lone config runs one kernel at a time (one instance) with more blocks than the GPU holds
// at once: the most of its blocks resident together shows the ACE's bound on a kernel alone.
bool lone_config(const Platform& p, const CalibrationCase& c) {
  if (c.scenario.instances.size() != 1) return false;
  bool kernels = false;
  for (const HostAction& a : c.scenario.instances.front().actions) {
    if (a.kind != HostAction::Kind::kernel) continue;
    if (a.kernel.blocks <= max_resident_blocks(p, a.kernel.shape)) return false;
    kernels = true;
  }
  return kernels;
}

// The most blocks of one launch resident at once (a block ending when another starts has left).
std::int64_t peak_resident(const KernelRecord& k) {
  std::vector<std::pair<Nanos, int>> steps;
  steps.reserve(2 * k.blocks.size());
  for (const BlockRecord& b : k.blocks) steps.insert(steps.end(), {{b.start, 1}, {b.end, -1}});
  std::sort(steps.begin(), steps.end());  // at one instant, ends (-1) before starts
  std::int64_t now = 0, peak = 0;
  for (const auto& [t, d] : steps) peak = std::max(peak, now += d);
  return peak;
}

// lone_kernel_blocks, measured rather than searched: the most blocks any launch of the lone
// configs had resident at once, where that is below what the GPU holds of its blocks (else no
// bound acts below the GPU's own limit: 0). The configs' blocks run long enough that the ACE's
// pace (block_dispatch_ns, at most kMaxFittedDispatchNs a block) fills the GPU first
// (examples/calibration-amd/lone.json).
double measure_lone_bound(const Platform& p, const std::vector<CalibrationCase>& cases) {
  std::int64_t peak = 0, capacity = 0;
  bool any = false;
  for (const CalibrationCase& c : cases) {
    if (!lone_config(p, c)) continue;
    any = true;
    for (const HostAction& a : c.scenario.instances.front().actions)
      if (a.kind == HostAction::Kind::kernel)
        capacity = std::max(capacity, max_resident_blocks(p, a.kernel.shape));
    for (const InstanceTrace& inst : c.measured.instances)
      for (const IterationRecord& it : inst.iterations)
        for (const KernelRecord& k : it.kernels) peak = std::max(peak, peak_resident(k));
  }
  if (!any)
    throw InputError(
        "calibrate", "fit", "lone_kernel_blocks",
        "no calibration config runs one kernel alone with more blocks than the GPU holds at once "
        "(examples/calibration-amd/lone.json)");
  // A measurement without blocks is refused with the others' (block_statistics: "missing").
  return peak >= capacity || peak == 0 ? 0 : static_cast<double>(peak);
}

// The memory parameters (memory_bandwidth and the walks' latency) act only on memory-bound
// blocks, and the other parameters are told by the other configs. Fitted all at once, the
// memory config's launch statistics (a few launches of a kernel whose blocks' demand ramps up)
// pull the split between jitter and kernel_jitter, and the coordinate descent stopped in the
// wrong valley (the true parameters cost less). So the fit is staged: the other parameters on
// the configs without memory-bound blocks, then the memory parameters on the memory-bound
// configs with those fixed; the residuals cover every config.
// Every simulated statistic of `cases` on `p` (in case and instance order), for the checks below.
std::vector<Stats> simulated_statistics(const Platform& p, const std::vector<CalibrationCase>& cases,
                                        std::uint64_t seed, bool spans) {
  SimulateOptions so;
  so.model_seed = seed;
  std::vector<Stats> out;
  for (const CalibrationCase& c : cases) {
    const auto stats = block_statistics(simulate(c.scenario, p, so).trace, spans);
    for (const ScenarioInstance& inst : c.scenario.instances) {
      const auto found = stats.find(inst.log_name);
      out.push_back(found == stats.end() ? Stats{} : found->second);
    }
  }
  return out;
}

// A fitted parameter that no config responds to would keep the search's start value (0) and be
// reported, and written, as fitted: each must move some simulated statistic between 0 and a
// probe value where it acts strongly (the walk latency scales every walk, and the lone bound is
// measured, not searched). jitter and kernel_jitter both fitted are told apart only by kernels
// of several blocks (a launch's blocks share kernel_jitter's draw, each has its own jitter).
void check_fitted_parameters_act(const Platform& base, const std::vector<CalibrationCase>& cases,
                                 const CalibrateOptions& o, bool spans) {
  const auto fitted = [&](const char* name) { return std::count(o.fit.begin(), o.fit.end(), name) > 0; };
  if (fitted("jitter") && fitted("kernel_jitter")) {
    const bool many = std::any_of(cases.begin(), cases.end(), [](const CalibrationCase& c) {
      return std::any_of(c.scenario.instances.begin(), c.scenario.instances.end(),
                         [](const ScenarioInstance& i) {
                           return std::any_of(i.actions.begin(), i.actions.end(), [](const HostAction& a) {
                             return a.kind == HostAction::Kind::kernel && a.kernel.blocks > 1;
                           });
                         });
    });
    if (!many)
      throw InputError("calibrate", "fit", "jitter,kernel_jitter",
                       "every kernel of the calibration configs has one block, so only the sum of the two "
                       "is measured (a launch's blocks share kernel_jitter's draw): add a config of "
                       "many-block kernels (examples/calibration/spread.json) or fit one of them");
  }
  for (const std::string& name : o.fit) {
    const Fittable& f = fittable(name);
    if (!f.field || name == "lone_kernel_blocks") continue;
    const double probe = f.whole ? 1 : name == "memory_bandwidth" ? 0.5 : 0.5 * upper_of(f, base);
    Platform at_zero = base, at_probe = base;
    at_zero.model.*(f.field) = 0;
    at_probe.model.*(f.field) = probe;
    if (simulated_statistics(at_zero, cases, o.seed, spans) ==
        simulated_statistics(at_probe, cases, o.seed, spans))
      throw InputError(
          "calibrate", "fit", name,
          fmt::format("no calibration config responds to it (every statistic is the same with it at 0 and at "
                      "{:g}), so its fit would say nothing: add a config it acts on (the bundled ones: "
                      "examples/calibration, or examples/calibration-amd on an AMD GPU) or leave it out of "
                      "--fit",
                      probe));
  }
}

CalibrationResult calibrate_staged(const Platform& base, const std::vector<CalibrationCase>& cases,
                                   const CalibrateOptions& o, bool spans) {
  std::vector<std::string> memory, other;
  for (const std::string& name : o.fit) (memory_parameter(name) ? memory : other).push_back(name);
  std::vector<CalibrationCase> bound, unbound;
  for (const CalibrationCase& c : cases) (memory_bound(c) ? bound : unbound).push_back(c);
  if (memory.empty() || other.empty() || bound.empty() || unbound.empty())
    return fit_together(base, cases, o, spans);
  CalibrateOptions first = o;
  first.fit = other;
  const CalibrationResult r1 = fit_together(base, unbound, first, spans);
  Platform b2 = base;
  b2.model = r1.params;
  CalibrateOptions second = o;
  second.fit = memory;
  const CalibrationResult r2 = fit_together(b2, bound, second, spans);
  // Every config under the staged fit: no parameter left to search, so one simulation.
  std::vector<CalibrationCase> all = cases;
  if (r2.random_walk_ns_per_access > 0)
    for (CalibrationCase& c : all) set_walk_latency(c.scenario, r2.random_walk_ns_per_access);
  Platform b3 = base;
  b3.model = r2.params;
  CalibrateOptions none = o;
  none.fit.clear();
  CalibrationResult r = fit_together(b3, all, none, spans);
  r.random_walk_ns_per_access = r2.random_walk_ns_per_access;
  r.evaluations += r1.evaluations + r2.evaluations;
  return r;
}

}  // namespace

// lone_kernel_blocks first: measured from the lone configs, then fixed while the rest is
// searched on the other configs (a lone config adds nothing to that search but simulation
// time); the residuals cover every config.
CalibrationResult calibrate(const Platform& base, const std::vector<CalibrationCase>& cases,
                            const CalibrateOptions& o) {
  const bool amd = base.vendor == Vendor::amd && base.shader_engines > 0;
  for (const std::string& name : o.fit)
    if (std::count(o.fit.begin(), o.fit.end(), name) > 1)
      throw InputError("calibrate", "fit", name, "is named twice");
  // A config that runs the ideal model ("gpurt_sim": {"model": "ideal"}) ignores every
  // parameter: fitted on it, any value fits as well as any other.
  for (const CalibrationCase& c : cases)
    if (c.scenario.sim.ideal_model && !o.fit.empty())
      throw InputError(c.config_file.empty() ? c.name : c.config_file, "gpurt_sim.model", "\"ideal\"",
                       "the config turns the performance model off, so no fitted parameter acts on it");
  bool spans = o.spans;                    // or a dispatch parameter is fitted: compare kernel spans too
  for (const std::string& name : o.fit) {  // validates the names
    if (!fittable(name).dispatch) continue;
    if (!amd)
      throw InputError(
          "calibrate", "fit", name,
          fmt::format("acts only on an AMD GPU with shader engines; platform \"{}\" is not one", base.id));
    spans = true;
  }
  const bool lone_fitted = std::count(o.fit.begin(), o.fit.end(), "lone_kernel_blocks") > 0;
  // The dispatch rules are fitted on configs where kernels compete; on lone configs only (one
  // kernel alone, which only lone_kernel_blocks is measured on) they would keep their start
  // values and be reported as fitted. (With lone_kernel_blocks fitted too, the lone configs
  // leave the search and the check below the measurement names every other parameter.)
  if (amd && !lone_fitted && !cases.empty() &&
      std::all_of(cases.begin(), cases.end(),
                  [&](const CalibrationCase& c) { return lone_config(base, c); })) {
    std::string names;
    for (const std::string& name : o.fit)
      if (fittable(name).dispatch) names += (names.empty() ? "" : ",") + name;
    if (!names.empty())
      throw InputError("calibrate", "fit", names,
                       "every calibration config runs one kernel alone (a lone config, which only "
                       "lone_kernel_blocks is measured on): add configs to fit these on, or fit "
                       "lone_kernel_blocks alone");
  }
  {
    std::vector<CalibrationCase>
        searched;  // the lone bound is measured on the lone configs, the rest searched on the others
    for (const CalibrationCase& c : cases)
      if (!lone_fitted || !lone_config(base, c)) searched.push_back(c);
    if (!searched.empty()) check_fitted_parameters_act(base, searched, o, spans);
  }
  if (!lone_fitted) return calibrate_staged(base, cases, o, spans);
  Platform b = base;
  b.model.lone_kernel_blocks = measure_lone_bound(base, cases);
  CalibrateOptions rest = o;
  std::erase(rest.fit, std::string("lone_kernel_blocks"));
  std::vector<CalibrationCase> search;
  for (const CalibrationCase& c : cases)
    if (!lone_config(base, c)) search.push_back(c);
  if (!rest.fit.empty() && search.empty()) {
    std::string names;
    for (const std::string& name : rest.fit) names += (names.empty() ? "" : ",") + name;
    throw InputError("calibrate", "fit", names,
                     "every calibration config runs one kernel alone (a lone config, which only "
                     "lone_kernel_blocks is measured on): add configs to fit these on, or fit "
                     "lone_kernel_blocks alone");
  }
  CalibrationResult r1;
  if (!rest.fit.empty()) {
    r1 = calibrate_staged(b, search, rest, spans);
    b.model = r1.params;
  }
  std::vector<CalibrationCase> all = cases;  // one simulation of every config, for the residuals
  if (r1.random_walk_ns_per_access > 0)
    for (CalibrationCase& c : all) set_walk_latency(c.scenario, r1.random_walk_ns_per_access);
  rest.fit.clear();
  CalibrationResult r = fit_together(b, all, rest, spans);
  r.random_walk_ns_per_access = r1.random_walk_ns_per_access;
  r.evaluations += r1.evaluations;
  return r;
}

}  // namespace gpurt
