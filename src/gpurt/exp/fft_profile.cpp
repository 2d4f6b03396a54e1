#include "gpurt/exp/fft_profile.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/rng.hpp"
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
}

std::vector<Nanos> profile_fft_size_sim(const Platform& p, int log2_size, const FftProfileOptions& o,
                                        std::vector<PlacementSpread>* spreads) {
  CufftShape shape;
  shape.log2_size = log2_size;
  shape.batch = o.batch;
  FftProfileRunOptions run;
  run.kernels = cufft_kernels(shape, p, o.model);
  run.runs = o.runs;
  run.interferer_block = o.interferer_block;
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
      const Nanos worst = *std::max_element(times.begin(), times.end());  // worst observed (§III-C)
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
  SmlpSystem system;
  system.platform = p;
  system.time_unit = TimeUnit::us;
  system.rho = o.rho;
  for (int log2_size : o.log2_sizes) {
    const std::vector<Nanos> wcet = profile_fft_size_sim(p, log2_size, o, spreads);
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
