// gpurt fft profile: the WCET profiler of FFT/SMLP §III-C. For every allocation size k it takes
// the worst of --runs executions of a cuFFT FFT on k units while an interfering kernel runs on
// every other unit, and writes a gpurt/smlp@1 task system for `gpurt analyze smlp`.
// --backend sim: the cuFFT model on the block-level simulator (SIMULATED numbers);
// --backend gpu: the real FFT job (runtime/fft_job) on the GPU.
#include <fmt/format.h>

#include "checks.hpp"
#include "commands.hpp"
#include "fft_common.hpp"
#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/exp/fft_profile.hpp"
#include "gpurt/runtime/fft_job.hpp"

namespace gpurt::cli {

namespace {
struct ProfileArgs {
  FftProfileOptions options;
  std::string model = "calibrated", backend = "sim", platform = "rtx3060ti", sizes = "22", placements = "1",
              out;
  int device = 0;
  FftBackendOptions given;
  CufftConstants cufft;
};

void run_profile(const ProfileArgs& a) {
  check_output_file(a.out, "--out");
  check_output_not_input(a.out, {a.platform}, "--out");
  FftProfileOptions o = a.options;
  o.log2_sizes = parse_int_list(a.sizes, 1, 28, "--sizes");
  if (a.placements == "all") {
    o.placements = 0;
  } else {
    std::vector<int> n;
    try {
      n = parse_int_list(a.placements, 1, 1024, "--placements");
    } catch (const InputError&) {
    }
    if (n.size() != 1)
      throw InputError("command line", "--placements", a.placements, "must be a count in 1..1024, or all");
    o.placements = n.front();
  }
  validate(o);
  SmlpSystem system;
  std::vector<PlacementSpread> spreads;
  if (fft_backend_is_gpu(a.backend, a.given)) {
    system =
        profile_fft_gpu(o.log2_sizes, o.batch, o.runs, o.copies, o.rho, a.device, o.placements, &spreads);
  } else {
    Platform platform = fft_platform(a.platform);
    apply_model_option(platform, a.model);
    apply_cufft_options(a.cufft, o.model);
    system = profile_fft_sim(platform, o, &spreads);
  }
  // Analyse before writing, so a system the analysis rejects never reaches the file.
  const SmlpResult r = analyse_smlp(system);
  write_file_atomically(a.out, to_json(system).dump(2) + "\n");
  fmt::print("{}: {} task(s), {} units of {} ({}), worst of {} run(s) per size\n", a.out, system.tasks.size(),
             system.platform.units(), system.platform.id, a.backend == "gpu" ? "measured" : "simulated",
             o.runs);
  for (std::size_t i = 0; i < r.tasks.size(); i += static_cast<std::size_t>(o.copies)) {
    const SmlpTaskResult& t = r.tasks[i];
    fmt::print("  {:<10} L(1) {:>10.1f} us  S_i = {{{}}}  Lemma 2 bound {:.1f} us\n", t.name,
               static_cast<double>(system.tasks[i].wcet_by_units.front().count()) / 1000,
               fmt::join(t.allowed_units, ","), static_cast<double>(t.response_bound.count()) / 1000);
  }
  if (o.placements != 1) {
    // §III-C's non-uniformity check: per size, the k whose unit sets differed most.
    for (int log2_size : o.log2_sizes) {
      const PlacementSpread* most = nullptr;
      double most_ratio = 0;
      for (const PlacementSpread& p : spreads) {
        if (p.log2_size != log2_size || p.placements < 2) continue;
        const double ratio = static_cast<double>(p.worst.count()) / static_cast<double>(p.best.count());
        if (most == nullptr || ratio > most_ratio) {
          most = &p;
          most_ratio = ratio;
        }
      }
      if (most == nullptr) continue;
      fmt::print("  2^{:<8} unit sets: the worst set is {:.2f} % slower than the best (k = {}, {} sets)\n",
                 log2_size, (most_ratio - 1) * 100, most->units, most->placements);
    }
  }
}
}  // namespace

void add_fft(CLI::App& app) {
  auto* fft = app.add_subcommand("fft", "Real-time FFT case study (FFT/SMLP seed)");
  fft->require_subcommand(1);
  auto* cmd = fft->add_subcommand(
      "profile", "§III-C: L(i,k) of cuFFT for every unit count k, with interference; writes gpurt/smlp@1");
  cmd->footer(
      "Sizes are exponents: --sizes 10-24 profiles 2^10..2^24 points (or a list: 12,18,22).\n"
      "--backend sim uses the cuFFT timing model on the simulator: the numbers are SIMULATED.\n"
      "Example:\n  gpurt fft profile --backend sim --platform rtx3060ti --sizes 22 --copies 4 --runs 10 "
      "--out fft22.json\n  gpurt analyze smlp fft22.json");
  auto a = std::make_shared<ProfileArgs>();
  cmd->add_option("--backend", a->backend, "sim (default) or gpu");
  a->given.platform = cmd->add_option("--platform", a->platform,
                                      "Platform preset or file for --backend sim (default rtx3060ti)");
  a->given.model = add_model_option(cmd, a->model);
  add_cufft_options(cmd, a->cufft, a->given);
  cmd->add_option("--sizes", a->sizes, "FFT size exponents, A-B or A,B,C (default 22)");
  cmd->add_option("--batch", a->options.batch, "Transforms per execution (default 1)");
  cmd->add_option("--runs", a->options.runs, "Executions per unit count; the worst is kept (default 10)");
  cmd->add_option("--copies", a->options.copies, "Identical tasks per size in the file (default 1)");
  cmd->add_option("--max-simulations", a->options.max_simulations,
                  "--backend sim: refuse a profile of more simulated executions (sizes x runs x unit sets; "
                  "default 2000000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd->add_option(
      "--placements", a->placements,
      "Unit sets profiled per unit count k: N contiguous sets spread over the GPU, or all; L(k) is the "
      "worst over them (§III-C, non-uniform SMs; default 1: units 0..k-1)");
  cmd->add_option("--rho", a->options.rho, "The system's rho for eq. (4) (default 1.1)")
      ->check(finite_in(1.0, 1e6));
  cmd->add_option("--seed", a->options.seed, "RNG seed (simulated run offsets)")->check(seed_value());
  a->given.device = cmd->add_option("--device", a->device, "CUDA device for --backend gpu (default 0)");
  cmd->add_option("--out", a->out, "The gpurt/smlp@1 file to write")->required();
  cmd->callback([a] { run_profile(*a); });
}

}  // namespace gpurt::cli
