// libFuzzer harness: any byte string read as a CSV and charted (first column against the rest)
// either succeeds or throws InputError / gpurt::Error (no drawable point); anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_dict.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/trace/chart.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const gpurt::CsvTable t = gpurt::parse_csv(text, "fuzz.csv");
    if (t.columns.size() < 2) return 0;
    const std::vector<std::string> ys(t.columns.begin() + 1, t.columns.end());
    gpurt::Chart c;
    c.log_y = size % 2 == 1;
    c.series = gpurt::series_from_csv(t, "fuzz.csv", t.columns[0], ys);
    (void)gpurt::chart_svg(c);
  } catch (const gpurt::Error&) {
  }
  return 0;
}
