#include "gpurt/exp/fft_profile.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/model/task_limits.hpp"
#include "gpurt/sim/fft_sim.hpp"

namespace gpurt {

void validate(const FftProfileOptions& o) {
  const auto bad = [](const std::string& name, const std::string& value, const std::string& problem) {
    throw InputError("options", name, value, problem);
  };
  if (o.log2_sizes.empty()) bad("sizes", "[]", "must name at least one FFT size");
  for (int p : o.log2_sizes)
    if (p < 1 || p > 28) bad("sizes", fmt::format("2^{}", p), "must be in 2^1..2^28");
  if (o.batch < 1 || o.batch > (1 << 20)) bad("batch", std::to_string(o.batch), "must be in 1..2^20");
  if (o.runs < 1 || o.runs > 1'000'000) bad("runs", std::to_string(o.runs), "must be in 1..1000000");
  if (o.copies < 1 || o.copies > 1000) bad("copies", std::to_string(o.copies), "must be in 1..1000");
  if (!(o.rho >= 1) || !std::isfinite(o.rho)) bad("rho", fmt::format("{}", o.rho), "must be >= 1");
  if (o.placements < 0 || o.placements > 1024)
    bad("placements", std::to_string(o.placements), "must be in 0..1024 (0: every unit set)");
  // The profile is a gpurt/smlp@1 file that `gpurt analyze smlp` must read (task_limits.hpp).
  if (o.log2_sizes.size() * static_cast<std::size_t>(o.copies) > kMaxTaskCount)
    bad("copies", std::to_string(o.copies),
        fmt::format("{} sizes x {} copies is {} tasks, more than a task file holds ({})", o.log2_sizes.size(),
                    o.copies, o.log2_sizes.size() * static_cast<std::size_t>(o.copies), kMaxTaskCount));
  // An execution's input: 2^p · batch cf32 points. Past 2^30 points (8 GiB of input, before
  // cuFFT's workspace) no GPU holds it, and the simulated profile would run for hours.
  for (int p : o.log2_sizes)
    if ((std::int64_t{o.batch} << p) > (std::int64_t{1} << 30))
      bad("batch", std::to_string(o.batch),
          fmt::format("2^{} points x batch {} is more than 2^30 points per execution (8 GiB of cf32 input)",
                      p, o.batch));
}

std::vector<Nanos> profile_fft_size_sim(const Platform& p, int log2_size, const FftProfileOptions& o,
                                        std::vector<PlacementSpread>* spreads) {
  // k = 1..H, each with its own runs over an H-unit device: the work grows with H², and past
  // 1,024 units (no GPU has a tenth of that) one profile runs for hours.
  if (p.units() > 1024)
    throw InputError(p.id, "units", std::to_string(p.units()),
                     "the FFT profile simulates every size k = 1..H; it takes at most 1024 allocation units");
  CufftShape shape;
  shape.log2_size = log2_size;
  shape.batch = o.batch;
  FftProfileRunOptions run;
  run.kernels = cufft_kernels(shape, p, o.model);
  run.runs = o.runs;
  run.interferer_block = o.interferer_block;
  const Nanos host_slack{p.model.host_cores > 0 && p.model.host_slice_us > 0 && p.model.host_cores < p.units()
                             ? static_cast<std::int64_t>(std::ceil(p.model.host_slice_us * 1000.0))
                             : 0};
  std::vector<Nanos> wcet;
  // One generator per (size, k): the numbers of one size do not depend on which others are
  // profiled with it.
  const Rng base(o.seed);
  for (int k = 1; k <= p.units(); ++k) {
    run.units = k;
    // The first set's seed is the one a single placement uses, so --placements only adds runs.
    Rng seeds = base.fork(static_cast<std::uint64_t>(log2_size) * 4096 + static_cast<std::uint64_t>(k));
    PlacementSpread spread{log2_size, k, 0, Nanos::max(), Nanos{0}};
    for (int first : placement_offsets(p.units(), k, o.placements)) {
      run.first_unit = first;
      run.seed = seeds.next_u64();
      const std::vector<Nanos> times = simulate_fft_profile_runs(p, run);
      // Worst observed (§III-C), plus the host slack: the profile runs one thread, but with
      // fewer host cores than possible lock holders (host_cores < H) an experiment's holder can
      // see its job's end, and unlock, up to a time slice later (sim/fft_sim.cpp host_delay), so
      // L(i,k) must hold that slice for Lemma 2 to bound what the experiment simulates.
      const Nanos worst = saturating_add(*std::max_element(times.begin(), times.end()), host_slack);
      spread.best = std::min(spread.best, worst);
      spread.worst = std::max(spread.worst, worst);
      ++spread.placements;
    }
    wcet.push_back(spread.worst);
    if (spreads != nullptr) spreads->push_back(spread);
  }
  return wcet;
}

SmlpSystem profile_fft_sim(const Platform& p, const FftProfileOptions& o,
                           std::vector<PlacementSpread>* spreads) {
  validate(o);
  validate(p);
  // Each option may be in range and their product still run for hours: count the executions.
  std::int64_t sets = 0;
  for (int k = 1; k <= p.units() && p.units() <= 1024; ++k)
    sets += static_cast<std::int64_t>(placement_offsets(p.units(), k, o.placements).size());
  const std::int64_t simulations = static_cast<std::int64_t>(o.log2_sizes.size()) * o.runs * sets;
  if (simulations > o.max_simulations) {
    throw InputError("options", "runs", std::to_string(o.runs),
                     fmt::format("{} size(s) x {} runs x {} unit sets is {} simulated executions, more than "
                                 "--max-simulations {}; raise it, or give fewer runs, sizes or placements",
                                 o.log2_sizes.size(), o.runs, sets, simulations, o.max_simulations));
  }
  SmlpSystem system;
  system.platform = p;
  system.time_unit = TimeUnit::us;
  system.rho = o.rho;
  for (int log2_size : o.log2_sizes) {
    const std::vector<Nanos> wcet = profile_fft_size_sim(p, log2_size, o, spreads);
    // Times past the task files' limit would make a profile `analyze smlp` refuses.
    const Nanos longest = *std::max_element(wcet.begin(), wcet.end());
    if (longest > kMaxTaskTime)
      throw InputError(
          "options", "sizes", fmt::format("2^{}", log2_size),
          fmt::format("its WCET is {} ns, above the 10^15 ns a task file may hold (the platform's "
                      "model makes this FFT too slow to profile)",
                      longest.count()));
    for (int c = 1; c <= o.copies; ++c) {
      SmlpTask t;
      t.name = o.copies == 1 ? fmt::format("fft_2^{}", log2_size) : fmt::format("fft_2^{}_{}", log2_size, c);
      t.wcet_by_units = wcet;
      system.tasks.push_back(std::move(t));
    }
  }
  return system;
}

}  // namespace gpurt
