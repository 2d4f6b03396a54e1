// libFuzzer harness: any byte string given to the smlp reader and analysis either succeeds or
// throws InputError; anything else (a crash, a sanitizer report, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_dict.hpp"
#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const gpurt::SmlpSystem system =
        gpurt::parse_smlp_system(gpurt::parse_json(text, "fuzz.json"), "fuzz.json");
    (void)gpurt::analyse_smlp(system);
  } catch (const gpurt::InputError&) {
  }
  return 0;
}
