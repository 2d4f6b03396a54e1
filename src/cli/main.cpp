#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpurt/core/error.hpp"

namespace {

// Commands are words: `gpurt analyze smlp FILE`. At a level that has commands and only flags
// (no positionals, no options taking values), the first word that is not an option must name
// one of them. CLI11 alone would answer `gpurt NOSUCHCOMMAND --help` with the level's help and
// exit 0; an unknown command is an error whatever follows it: exit 2 with the list of commands.
int check_command(const CLI::App& app, const std::string& path, int first, int argc, char** argv) {
  const auto commands = app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); });
  if (commands.empty()) return 0;
  const auto takes_words = [](const CLI::Option* o) {
    return o->get_positional() || o->get_expected_max() > 0;
  };
  if (!app.get_options(takes_words).empty()) return 0;
  for (int i = first; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    for (const CLI::App* c : commands) {
      if (c->check_name(word)) return check_command(*c, path + " " + c->get_name(), i + 1, argc, argv);
    }
    std::string list;
    for (const CLI::App* c : commands)
      list += fmt::format("  {:<18}{}\n", c->get_name(), c->get_description());
    std::fflush(stdout);
    // path is "gpurt" or "gpurt analyze": the error names the words after "gpurt".
    const std::string words = path.size() > 5 ? path.substr(6) + " " + word : word;
    fmt::print(stderr,
               "gpurt: error: unknown command '{}'\nCommands:\n{}Run `{} COMMAND --help` for a command's "
               "options.\n",
               gpurt::printable(words), list, path);
    return 2;
  }
  return 0;
}

// CLI11 reads an empty word as a value: `--trials ''` would run 0 trials and `--seed ''` seed 0.
// No option or operand of gpurt means anything when empty, so an empty word (or `--name=`) is
// refused before parsing, naming the option it would have been the value of.
int check_empty_words(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const std::size_t eq = word.find('=');
    std::string option;
    if (word.empty()) {
      option = i > 1 && argv[i - 1][0] == '-' ? argv[i - 1] : "";
    } else if (word.rfind("--", 0) == 0 && eq == word.size() - 1) {
      option = word.substr(0, eq);
    } else {
      continue;
    }
    std::fflush(stdout);
    if (option.empty())
      fmt::print(stderr, "gpurt: error: argument {} is empty\n", i);
    else
      fmt::print(stderr, "gpurt: error: {} has an empty value\n", gpurt::printable(option));
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpurt: bound, predict and measure real-time work on a shared GPU", "gpurt"};
  app.set_version_flag("--version", "gpurt 0.1.0");
  app.require_subcommand(1);
  // Command-line errors read like every other error (and, like every error, with control
  // characters of the words they quote escaped: gpurt::printable): "gpurt: error: ...", then the help hint.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return "gpurt: error: " + gpurt::printable(CLI::FailureMessage::simple(a, e));
  });
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
  gpurt::cli::add_dispatch_table(app);
  gpurt::cli::add_simulate_system(app);
  gpurt::cli::add_chart(app);
  gpurt::cli::add_sweep_pbs(app);
  gpurt::cli::add_sweep_merge(app);
  gpurt::cli::add_simulate_rtgpu(app);
  gpurt::cli::add_fft(app);
  gpurt::cli::add_sweep_fft(app);
  gpurt::cli::add_sweep_nn(app);
  gpurt::cli::add_sweep_cu(app);
  gpurt::cli::add_calibrate(app);
  gpurt::cli::add_report(app);
  gpurt::cli::add_convert(app);
  if (const int code = check_empty_words(argc, argv); code != 0) return code;
  if (const int code = check_command(app, "gpurt", 1, argc, argv); code != 0) return code;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (app.exit(e) != 0) return 2;
    // --help and --version: what they printed must reach its reader as well (below).
  } catch (const gpurt::InputError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "gpurt: error: {}\n", gpurt::printable(e.what()));
    return 2;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "gpurt: error: {}\n", gpurt::printable(e.what()));
    return 1;
  }
  // What a command printed must have reached its reader: a failed write to standard output (a
  // full disk, /dev/full) is a failure, not a silent exit 0.
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout.flush()) {
    fmt::print(stderr, "gpurt: error: cannot write to standard output\n");
    return 1;
  }
  return gpurt::cli::exit_status();
}
