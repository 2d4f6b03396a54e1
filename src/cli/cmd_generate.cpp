// gpurt generate uunifast: seeded utilisation vectors.
#include <fmt/format.h>

#include <algorithm>

#include "checks.hpp"
#include "commands.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/gen/uunifast.hpp"

namespace gpurt::cli {

namespace {
struct UUniFastArgs {
  int n = 0;
  double total = 0;
  std::uint64_t seed = 1;
  int count = 1;
  std::optional<double> max_each;
  bool json = false;
  std::int64_t max_values = 10'000'000;  // n * count without --max-values
};

void run_uunifast(const UUniFastArgs& given) {
  UUniFastArgs a = given;
  a.total += 0.0;  // -0 is 0: no "-0" among the printed values
  if (a.max_each && !(*a.max_each > 0)) {
    throw InputError("command line", "--max-each", fmt::format("{}", *a.max_each), "must be > 0");
  }
  if (a.max_each && a.total > a.n * *a.max_each) {
    throw InputError("command line", "--total", fmt::format("{}", a.total),
                     fmt::format("exceeds n * max-each = {}", a.n * *a.max_each));
  }
  const std::int64_t values = std::int64_t{a.n} * a.count;
  if (values > a.max_values) {
    throw InputError("command line", "--n * --count", std::to_string(values),
                     fmt::format("is more than --max-values {} values; raise --max-values", a.max_values));
  }
  Rng rng(a.seed);
  const auto draw = [&] {
    if (!a.max_each) return uunifast(rng, a.n, a.total);
    // About 10^8 values drawn at most (a few seconds), however large n: near n·max-each almost
    // every draw is discarded.
    const int attempts = static_cast<int>(std::clamp<std::int64_t>(100'000'000 / a.n, 100, 1'000'000));
    auto u = uunifast_discard(rng, a.n, a.total, {*a.max_each, attempts});
    if (!u) {
      throw Error(
          fmt::format("UUniFast-Discard accepted none of {} draws of {} values (--total {} is too close "
                      "to n * max-each = {}); lower --total",
                      attempts, a.n, a.total, a.n * *a.max_each));
    }
    return std::move(*u);
  };
  // Drawn, checked and buffered first (a failed draw prints nothing), then printed; the buffer
  // holds at most --max-values values.
  std::string out = a.json ? "[" : "";
  for (int i = 0; i < a.count; ++i) {
    const std::vector<double> u = draw();
    if (a.json) {
      out += (i > 0 ? "," : "") + Json(u).dump();
    } else {
      out += fmt::format("{}\n", fmt::join(u, ","));
    }
  }
  if (a.json) out += "]\n";
  fmt::print("{}", out);
}
}  // namespace

void add_generate(CLI::App& app) {
  auto* generate = app.add_subcommand("generate", "Seeded generators (task sets, utilisations)");
  generate->require_subcommand(1);
  auto* uu =
      generate->add_subcommand("uunifast", "UUniFast (or UUniFast-Discard with --max-each) utilisations");
  uu->footer("Example:\n  gpurt generate uunifast --n 8 --total 3.5 --max-each 1 --seed 7 --count 3");
  auto args = std::make_shared<UUniFastArgs>();
  uu->add_option("--n", args->n, "Values per set")->required()->check(CLI::Range(1, 1'000'000));
  uu->add_option("--total", args->total, "Their sum")->required()->check(finite_non_negative());
  uu->add_option("--seed", args->seed, "RNG seed (same seed, same output on any machine)")
      ->check(seed_value());
  uu->add_option("--count", args->count, "Number of sets")->check(CLI::Range(1, 10'000'000));
  uu->add_option("--max-each", args->max_each, "Discard sets with a value above this (UUniFast-Discard)")
      ->check(finite_positive());
  uu->add_option("--max-values", args->max_values,
                 "Refuse more than this many values in all (--n times --count; default 10000000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  uu->add_flag("--json", args->json, "Print a JSON array of arrays instead of CSV lines");
  uu->callback([args] { run_uunifast(*args); });
  add_generate_rtgpu(*generate);
  add_generate_signal(*generate);  // cmd_generate_signal.cpp
}

}  // namespace gpurt::cli
