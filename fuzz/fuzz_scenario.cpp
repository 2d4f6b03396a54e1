// libFuzzer harness for examiner configs: parse against a platform and, when accepted, simulate
// with a horizon; anything but InputError (a crash, a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_dict.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/sim/simulate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const gpurt::Platform& p = *gpurt::find_platform_preset("jetson-tx2");
  try {
    const gpurt::Scenario s = gpurt::parse_scenario(gpurt::parse_json(text, "fuzz.json"), "fuzz.json", p);
    (void)gpurt::simulate(s, p, gpurt::SimulateOptions{true, gpurt::Nanos{10'000'000'000}});
  } catch (const gpurt::InputError&) {
  }
  return 0;
}
