#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpurt/core/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"gpurt: bound, predict and measure real-time work on a shared GPU", "gpurt"};
  app.set_version_flag("--version", "gpurt 0.1.0");
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 ok, 1 not schedulable (with --check) or failure, 2 bad input.\n"
      "Run `gpurt COMMAND --help` for a command's options and an example.");
  gpurt::cli::add_platforms(app);
  gpurt::cli::add_analyze(app);
  gpurt::cli::add_device(app);
  gpurt::cli::add_generate(app);
  gpurt::cli::add_simulate(app);
  gpurt::cli::add_plot(app);
  gpurt::cli::add_bench(app);
  gpurt::cli::add_sweep_rtgpu(app);
  gpurt::cli::add_simulate_table(app);
  gpurt::cli::add_simulate_system(app);
  gpurt::cli::add_chart(app);
  gpurt::cli::add_sweep_pbs(app);
  gpurt::cli::add_sweep_merge(app);
  gpurt::cli::add_simulate_rtgpu(app);
  gpurt::cli::add_fft(app);
  gpurt::cli::add_sweep_fft(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const gpurt::InputError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "gpurt: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "gpurt: error: {}\n", e.what());
    return 1;
  }
  return gpurt::cli::exit_status();
}
