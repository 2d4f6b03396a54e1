// libFuzzer harness for the platform reader (`--platform FILE`): any byte string either parses
// into a platform or throws InputError; anything else (a crash, a sanitizer report, another
// exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_dict.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/model/platform.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const gpurt::Json doc = gpurt::parse_json(text, "fuzz.json");
    (void)gpurt::parse_platform(gpurt::JsonNode(doc, "fuzz.json"));
  } catch (const gpurt::InputError&) {
  }
  return 0;
}
