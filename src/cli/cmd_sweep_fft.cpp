// gpurt sweep fft: the BE-vs-SMLP cuFFT experiment of FFT/SMLP §IV (Figures 6-7) as CSV, with
// --plot (response times and the Lemma 2 bound against the task count, Fig. 6) and
// --plot-throughput (Fig. 7). --backend sim (default): SIMULATED with the cuFFT model;
// --backend gpu: the real FFT job, one point at a time.
#include <cstdlib>

#include <fmt/format.h>

#include <map>

#include "checks.hpp"
#include "commands.hpp"
#include "fft_common.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/exp/fft_sweep.hpp"
#include "gpurt/gen/signal.hpp"
#include "gpurt/runtime/fft_job.hpp"
#include "gpurt/trace/chart.hpp"
#include "sweep_common.hpp"

namespace gpurt::cli {

namespace {
struct SweepFftArgs {
  FftSweepOptions options;
  std::string model = "calibrated", backend = "sim", platform = "rtx3060ti", sizes = "10-24", tasks = "1-21",
              plot_throughput;
  double max_gap_us = 5;
  int device = 0;
  std::string gpu_copies = "each-job";
  FftBackendOptions given;
  CufftConstants cufft;
  SweepRunArgs run;
};

// The GPU backend: the profile and every trial through runtime/fft_job (measured numbers).
void use_gpu(FftSweepOptions& o, int device, bool copy_each_job) {
  // One profile per size, also giving the device's platform description.
  auto profiles = std::make_shared<std::map<int, std::vector<Nanos>>>();
  for (int p : o.log2_sizes) {
    const SmlpSystem s = profile_fft_gpu({p}, o.profile.batch, o.profile.runs, 1, o.profile.rho, device);
    o.platform = s.platform;
    (*profiles)[p] = s.tasks.front().wcet_by_units;
  }
  o.backend.label = "measured";
  o.backend.profile = [profiles](int p) { return profiles->at(p); };
  // One §IV-A signal per size, shared by every job (cuFFT's time does not depend on it).
  SignalOptions so;
  so.seed = o.seed;
  so.samples = std::int64_t{1} << std::min(o.log2_sizes.back(), 24);
  const std::vector<std::complex<float>> input = generate_signal(so).samples;
  o.backend.run = [device, input, copy_each_job](int log2_size, int batch, const FftTasksOptions& t) {
    FftGpuTasksOptions g;
    g.log2_size = log2_size;
    g.batch = batch;
    g.tasks = t.tasks;
    g.jobs = t.jobs;
    g.smlp = t.policy == FftPolicy::smlp;
    g.allowed = t.allowed;
    g.device = device;
    g.input = input;
    g.copy_each_job = copy_each_job;
    const FftGpuTasksResult r = run_fft_tasks_gpu(g);
    if (r.cold_grants > 0)
      fmt::print(
          stderr,
          "gpurt: note: 2^{}, {} tasks, SMLP: {} of {} jobs got a unit set on which no FFT of this size "
          "had run (its green context, stream or cuFFT kernels were made inside the job's span)\n",
          log2_size, t.tasks, r.cold_grants, r.responses.size());
    return FftTasksResult{r.responses, r.granted, r.makespan};
  };
}

void run_sweep_fft(const SweepFftArgs& a) {
  FftSweepOptions o = a.options;
  o.log2_sizes = parse_int_list(a.sizes, 1, 28, "--sizes");
  o.task_counts = parse_int_list(a.tasks, 1, 1000, "--tasks");
  if (!(a.max_gap_us >= 0 && a.max_gap_us <= 1e9))
    throw InputError("command line", "--max-gap-us", fmt::format("{}", a.max_gap_us), "must be in [0, 1e9]");
  o.max_gap = Nanos{static_cast<std::int64_t>(a.max_gap_us * 1000)};
  if ((!a.run.plot.empty() || !a.plot_throughput.empty()) && o.log2_sizes.size() != 1)
    throw InputError("command line", "--sizes", a.sizes, "--plot and --plot-throughput draw one FFT size");
  const bool gpu = fft_backend_is_gpu(a.backend, a.given);
  if (gpu) {
    if (a.run.threads != 1)
      throw InputError("command line", "--threads", std::to_string(a.run.threads),
                       "--backend gpu runs one point at a time: give --threads 1");
    use_gpu(o, a.device, a.gpu_copies == "each-job");
  } else {
    o.platform = fft_platform(a.platform);
    apply_model_option(o.platform, a.model);
    apply_cufft_options(a.cufft, o.profile.model);
  }
  const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  const std::string what = gpu ? fmt::format("measured, CUDA_DEVICE_MAX_CONNECTIONS={}, copies {}",
                                             connections != nullptr ? connections : "unset", a.gpu_copies)
                               : "SIMULATED (cuFFT model on the block-level simulator)";
  const std::string note =
      fmt::format("{}; {} trial(s) x {} job(s) per task; seed {}", what, o.trials, o.jobs, o.seed);
  // The seed's Figures 6 and 7: columns against the task count, titled by what they show.
  const auto figure = [&](const std::string& shows, const std::string& y_label, std::vector<std::string> ys) {
    SweepPlot p;
    p.title = fmt::format("FFT 2^{} on {}: {}, BE vs SMLP ({})", o.log2_sizes.front(), o.platform.id, shows,
                          gpu ? "measured" : "simulated");
    p.x = "tasks";
    p.x_label = "concurrent FFT tasks";
    p.y_label = y_label;
    p.note = note;
    p.ys = std::move(ys);
    return p;
  };
  const SweepPlot plot = figure("response times", "response time (us)",
                                {"be_avg_us", "be_max_us", "smlp_avg_us", "smlp_max_us", "bound_us"});
  const SweepPlot throughput = figure(
      "throughput", "throughput (Msamples/s)",
      {"be_throughput_msps", "smlp_throughput_msps", "be_rt_throughput_msps", "smlp_rt_throughput_msps"});
  const SweepExperiment e = fft_sweep_experiment(o);
  SweepRunArgs run = a.run;
  run.more_outputs.emplace_back("--plot-throughput", a.plot_throughput);
  run.inputs = {a.platform};
  run_sweep_command(e, run, plot, {{a.plot_throughput, throughput}});
}
}  // namespace

void add_sweep_fft(CLI::App& app) {
  auto* cmd = sweep_command(app)->add_subcommand(
      "fft", "FFT/SMLP §IV: N concurrent cuFFT tasks, BE vs SMLP, bound and throughput (CSV, SVG)");
  cmd->footer(
      "Sizes are exponents (--sizes 10-24 = 2^10..2^24 points). With --backend sim every number is\n"
      "SIMULATED (docs/fft.md). The violations column counts SMLP jobs above the Lemma 2 bound.\n"
      "Example (Figures 6-7, simulated):\n"
      "  gpurt sweep fft --sizes 22 --tasks 1-21 --trials 3 --jobs 20 --out fft22.csv \\\n"
      "    --plot fig6.svg --plot-throughput fig7.svg");
  auto a = std::make_shared<SweepFftArgs>();
  FftSweepOptions& o = a->options;
  cmd->add_option("--backend", a->backend, "sim (default) or gpu");
  a->given.platform = cmd->add_option("--platform", a->platform,
                                      "Platform preset or file for --backend sim (default rtx3060ti)");
  a->given.model = add_model_option(cmd, a->model);
  add_cufft_options(cmd, a->cufft, a->given);
  cmd->add_option("--sizes", a->sizes, "FFT size exponents, A-B or A,B,C (default 10-24)");
  cmd->add_option("--tasks", a->tasks, "Concurrent task counts N, A-B or A,B,C (default 1-21)");
  cmd->add_option("--trials", o.trials, "Trials per point (default 10; the seed ran 1,000)");
  cmd->add_option("--jobs", o.jobs, "Consecutive jobs per task and trial (default 50; the seed: 100)");
  cmd->add_option("--runs", o.profile.runs,
                  "Profiling runs per unit count (default 10; the WCETs are the worst runs, so with very "
                  "few a run can miss the worst interference and jobs exceed the bound: 2^9 with --runs 1 "
                  "has 20 violations at 21 tasks)");
  cmd->add_option("--rho", o.profile.rho, "rho of eq. (4) (default 1.1, as the seed)")
      ->check(finite_in(1.0, 1e6));
  cmd->add_option("--batch", o.profile.batch, "Transforms per execution (default 1)");
  cmd->add_option("--max-gap-us", a->max_gap_us,
                  "Host time between a task's jobs, uniform in [0, this] (default 5)");
  cmd->add_option("--seed", o.seed, "RNG seed")->check(seed_value());
  a->given.device = cmd->add_option("--device", a->device, "CUDA device for --backend gpu (default 0)");
  a->given.gpu_copies =
      cmd->add_option(
             "--gpu-copies", a->gpu_copies,
             "--backend gpu: each-job (default; Alg. 1: every job copies its samples in and out, outside "
             "its response; the copies between jobs are inside the makespan) or once (each task copies once "
             "before its first job and "
             "once after its last, so the jobs are the kernels alone, as the simulator models them)")
          ->check(CLI::IsMember({"each-job", "once"}));
  cmd->add_option("--plot-throughput", a->plot_throughput, "Also draw throughput vs tasks (Fig. 7) as SVG");
  add_sweep_run_options(cmd, a->run);
  cmd->callback([a] { run_sweep_fft(*a); });
}

}  // namespace gpurt::cli
