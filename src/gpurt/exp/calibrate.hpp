// Calibration (issue 15): fits a platform's performance-model parameters (model/perf_params.hpp)
// to measured examiner result files of a set of calibration configs (examples/calibration/),
// by simulating the same configs and minimising the squared log-ratio of simulated to measured
// block-time statistics. An experiment over the simulator; the CLI (`gpurt calibrate`) reads the
// files and writes the fitted platform. docs/simulator.md "Calibration".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpurt/model/platform.hpp"
#include "gpurt/model/scenario.hpp"
#include "gpurt/trace/trace.hpp"

namespace gpurt {

/// One calibration config and what a GPU measured running it.
struct CalibrationCase {
  std::string name;  ///< names its statistics in the residuals
  /// Where its config and its measurement came from, named in errors (when empty: `name`).
  std::string config_file, measured_folder;
  Scenario scenario;
  Trace measured;
};

/// The search intervals of the parameters that are not fractions in [0, 1].
inline constexpr double kMaxFittedDispatchNs = 10000;  ///< block_dispatch_ns: [0, 10 us]
inline constexpr double kMaxFittedLockThreshold = 16;  ///< cu_lock_threshold: 0..16, whole numbers
/// random_walk_ns_per_access: (0, 10 us]. memory_bandwidth's interval is [0, the platform's most
/// resident blocks] (sms · max_blocks), past which it never binds.
inline constexpr double kMaxFittedWalkNs = 10000;

/// What `gpurt calibrate` fits by default on an AMD platform with shader engines, from the
/// configs of examples/calibration-amd/: the dispatch rules' parameters (lone_kernel_blocks
/// among them) and kernel_jitter.
std::vector<std::string> amd_dispatch_fit();

struct CalibrateOptions {
  /// Parameters to fit (PerfParams field names); the others keep the base platform's values.
  /// lone_kernel_blocks is measured, not searched: the most blocks of one launch resident at
  /// once in the lone configs (one instance, more blocks than the GPU holds; 0 when that is
  /// what the GPU holds), then fixed while the rest is fitted on the other configs.
  /// Fitting a dispatch parameter (wave_release, block_dispatch_ns, cu_lock_threshold) also
  /// compares kernel spans (CalibrationStatistic). "random_walk_ns_per_access" is not a platform
  /// parameter but the latency of one dependent access of the configs' random_walk blocks (the
  /// isolated time memory_bandwidth stretches; CalibrationResult::random_walk_ns_per_access).
  std::vector<std::string> fit = {
      "switch_cost",      "coresidence_cost",         "spread_cost", "jitter", "kernel_jitter",
      "memory_bandwidth", "random_walk_ns_per_access"};
  std::uint64_t seed = 1;  ///< the simulations' seed (the measurement is one draw of its own)
  int sweeps = 10;         ///< coordinate-descent passes over the parameters (then a Nelder-Mead polish)
  /// Compare the kernel spans too when no dispatch parameter is fitted (`calibrate --check` on an
  /// AMD GPU with shader engines, so that it reports what that GPU's default fit reports).
  bool spans = false;
};

/// One statistic: per case and instance, the 10th percentile, mean and 90th percentile of the
/// block durations, and the 10th and 90th percentiles over kernel launches of a launch's mean
/// block duration; when a dispatch parameter is fitted, also the 10th percentile, mean and 90th
/// percentile of the kernel spans (a launch's first block start to its last block end).
struct CalibrationStatistic {
  std::string name;  ///< "case/instance/p10", ".../mean", ".../p90", ".../launch_p10",
                     ///< ".../launch_p90", ".../span_p10", ".../span_mean" or ".../span_p90"
  double measured_ns = 0, fitted_ns = 0;
  double log_error() const;  ///< ln(fitted / measured)
};

struct CalibrationResult {
  PerfParams params;  ///< the fit (unfitted fields as in the base platform)
  /// The fitted latency of a random_walk access (ns), when fitted; else 0. A memory_bandwidth
  /// the configs' demand never reaches comes back 0 (unlimited): the search starts there and
  /// takes a value only where it costs strictly less.
  double random_walk_ns_per_access = 0;
  std::vector<CalibrationStatistic> residuals;
  double rms_log_error = 0;  ///< root mean square of the residuals' log errors
  int evaluations = 0;       ///< simulations of the whole set
};

/// Fits `options.fit` of `base.model`. Throws InputError when a case has no measured blocks or
/// an instance of the config is missing from its measurement, for an unknown parameter, and for
/// memory_bandwidth or random_walk_ns_per_access when no config has memory-bound blocks or walks.
CalibrationResult calibrate(const Platform& base, const std::vector<CalibrationCase>& cases,
                            const CalibrateOptions& options = {});

}  // namespace gpurt
