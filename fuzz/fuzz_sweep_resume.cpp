// libFuzzer harness for the sweep CSV readers: any byte string, as the partial output a sweep
// resumes from (--out) and as a shard file for `sweep merge`, is either taken or refused with
// InputError; anything else is a bug. The sweep is a tiny synthetic one (3 points, 1 item each,
// no real work), so every input exercises only the readers.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz_dict.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/exp/sweep.hpp"

namespace {

gpurt::SweepExperiment tiny() {
  gpurt::SweepExperiment e;
  e.key_columns = {"utilization"};
  e.value_columns = {"sets", "ratio"};
  e.keys = {{"0.5"}, {"1"}, {"1.5"}};
  e.items = {1, 1, 1};
  e.run_item = [](std::size_t point, int) { return gpurt::SweepItem{static_cast<double>(point)}; };
  e.finish_point = [](std::size_t, const std::vector<gpurt::SweepItem>& items) {
    return std::vector<std::string>{"1", std::to_string(items.front().front() / 2)};
  };
  return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)gpurt::merge_sweep_csv({{"fuzz.csv", text}});
  } catch (const gpurt::InputError&) {
  }
  static const std::string path = "/tmp/gpurt-fuzz-sweep-" + std::to_string(::getpid()) + ".csv";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  const bool written = std::fwrite(data, 1, size, f) == size;
  std::fclose(f);
  if (!written) return 0;
  gpurt::SweepRunOptions o;
  o.threads = 1;
  o.out = path;
  o.shard_count = 1 + static_cast<int>(size % 2);
  o.shard_index = 1;
  try {
    (void)gpurt::run_sweep(tiny(), o);
  } catch (const gpurt::InputError&) {
  }
  return 0;
}
