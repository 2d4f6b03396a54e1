#include "gpurt/exp/calibrate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/sim/simulate.hpp"

namespace gpurt {

namespace {

// What is compared: per instance, the 10th percentile, the mean and the 90th percentile of its
// block durations (ns). The percentiles separate variability (jitter) from the costs that shift
// every block, and unlike a minimum or maximum they do not hang on one block's draw.
constexpr std::size_t kStats = 3;
constexpr const char* kStatNames[kStats] = {"p10", "mean", "p90"};
using Stats = std::array<double, kStats>;

// Per instance (by log name).
std::map<std::string, Stats> block_statistics(const Trace& trace) {
  std::map<std::string, Stats> out;
  for (const InstanceTrace& inst : trace.instances) {
    std::vector<double> d;
    for (const IterationRecord& it : inst.iterations)
      for (const KernelRecord& k : it.kernels)
        for (const BlockRecord& b : k.blocks) d.push_back(static_cast<double>((b.end - b.start).count()));
    if (d.empty()) continue;
    std::sort(d.begin(), d.end());
    double sum = 0;
    for (double x : d) sum += x;
    const auto at = [&](double q) {
      return d[static_cast<std::size_t>(q * static_cast<double>(d.size() - 1))];
    };
    if (at(0.1) > 0) out[inst.log_name] = {at(0.1), sum / static_cast<double>(d.size()), at(0.9)};
  }
  return out;
}

// The parameter `name` of `p`, and its search interval.
double& field(PerfParams& p, const std::string& name) {
  if (name == "switch_cost") return p.switch_cost;
  if (name == "coresidence_cost") return p.coresidence_cost;
  if (name == "spread_cost") return p.spread_cost;
  if (name == "jitter") return p.jitter;
  throw Error(
      fmt::format("calibrate: cannot fit \"{}\" (switch_cost, coresidence_cost, spread_cost, jitter)", name));
}
constexpr double kUpper = 1.0;  // every fitted fraction is searched in [0, 1]

}  // namespace

double CalibrationStatistic::log_error() const { return std::log(fitted_ns / measured_ns); }

CalibrationResult calibrate(const Platform& base, const std::vector<CalibrationCase>& cases,
                            const CalibrateOptions& o) {
  if (cases.empty()) throw InputError("calibrate", "cases", "[]", "needs at least one calibration config");
  // The measured statistics, in the order the simulation reports them.
  std::vector<std::string> names;
  std::vector<Stats> measured;
  for (const CalibrationCase& c : cases) {
    const auto stats = block_statistics(c.measured);
    for (const ScenarioInstance& inst : c.scenario.instances) {
      const auto found = stats.find(inst.log_name);
      if (found == stats.end())
        throw InputError(c.name, inst.log_name, "missing",
                         "the measurement has no blocks for this instance (is it the right result folder?)");
      names.push_back(c.name + "/" + (inst.label.empty() ? inst.log_name : inst.label));
      measured.push_back(found->second);
    }
  }
  CalibrationResult result;
  result.params = base.model;
  for (const std::string& name : o.fit) field(result.params, name) = 0;  // validates the names

  // Simulated statistics under `params`, in the order of `measured`.
  const auto simulate_all = [&](const PerfParams& params) {
    Platform p = base;
    p.model = params;
    SimulateOptions so;
    so.model_seed = o.seed;
    std::vector<Stats> out;
    for (const CalibrationCase& c : cases) {
      const auto stats = block_statistics(simulate(c.scenario, p, so).trace);
      for (const ScenarioInstance& inst : c.scenario.instances) out.push_back(stats.at(inst.log_name));
    }
    ++result.evaluations;
    return out;
  };
  const auto cost = [&](const PerfParams& params) {
    const auto sim = simulate_all(params);
    double sum = 0;
    for (std::size_t i = 0; i < sim.size(); ++i)
      for (std::size_t s = 0; s < kStats; ++s) sum += std::pow(std::log(sim[i][s] / measured[i][s]), 2);
    return sum;
  };

  // Coordinate descent: a golden-section search over [0, 1] for each parameter in turn, then a
  // narrower one around the result on later passes. Deterministic (fixed seed, fixed order).
  double best = cost(result.params);
  std::map<std::string, double> width;
  for (const std::string& name : o.fit) width[name] = kUpper;
  for (int sweep = 0; sweep < std::max(1, o.sweeps); ++sweep) {
    for (const std::string& name : o.fit) {
      PerfParams trial = result.params;
      double& x = field(trial, name);
      const double centre = x;
      double lo = std::max(0.0, centre - width[name]), hi = std::min(kUpper, centre + width[name]);
      constexpr double g = 0.6180339887498949;
      double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
      x = a;
      double fa = cost(trial);
      x = b;
      double fb = cost(trial);
      for (int i = 0; i < 24; ++i) {
        if (fa <= fb) {
          hi = b, b = a, fb = fa, a = hi - g * (hi - lo);
          x = a;
          fa = cost(trial);
        } else {
          lo = a, a = b, fa = fb, b = lo + g * (hi - lo);
          x = b;
          fb = cost(trial);
        }
      }
      const double candidate = fa <= fb ? a : b, fc = std::min(fa, fb);
      if (fc < best) {
        best = fc;
        field(result.params, name) = candidate;
      }
      width[name] = std::max(0.01, width[name] / 2);
    }
  }
  const auto fitted = simulate_all(result.params);
  double sum = 0;
  for (std::size_t i = 0; i < fitted.size(); ++i)
    for (std::size_t s = 0; s < kStats; ++s) {
      result.residuals.push_back({names[i] + "/" + kStatNames[s], measured[i][s], fitted[i][s]});
      sum += std::pow(result.residuals.back().log_error(), 2);
    }
  result.rms_log_error = std::sqrt(sum / static_cast<double>(result.residuals.size()));
  return result;
}

}  // namespace gpurt
