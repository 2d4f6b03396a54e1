// libFuzzer harness for the examiner result reader behind `gpurt plot`: any byte string, read as
// a result file, either loads and draws (timeline, Perfetto trace, response-time CDF) or throws
// InputError; anything else is a bug. The reader takes paths, so each input goes through one
// temporary file (per process).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz_dict.hpp"
#include "gpurt/bench/plots.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/trace/chart.hpp"
#include "gpurt/trace/examiner_json.hpp"
#include "gpurt/trace/render.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/gpurt-fuzz-results-" + std::to_string(::getpid()) + ".json";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  const bool written = std::fwrite(data, 1, size, f) == size;
  std::fclose(f);
  if (!written) return 0;
  try {
    const gpurt::Trace trace = gpurt::load_examiner_results({path});
    (void)gpurt::render_svg_timeline(trace);
    (void)gpurt::perfetto_trace(trace).dump();
    (void)gpurt::chart_svg(gpurt::response_time_cdf(trace));
  } catch (const gpurt::InputError&) {
  }
  return 0;
}
