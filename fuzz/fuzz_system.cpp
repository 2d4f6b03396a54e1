// libFuzzer harness for the task-system reader (`gpurt/system@1` and the four model formats it
// reads through parse_any_system): any byte string either parses into a system or throws
// InputError; on what parses, the file form (to_json) and the four derivations (to_smlp,
// to_rtgpu, to_pbs, to_fifo) must return a model or a reason, never crash or throw. Anything else
// (a crash, a sanitizer report, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_dict.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/model/system.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpurt::System system;
  try {
    const gpurt::Json doc = gpurt::parse_json(text, "fuzz.json");
    system = gpurt::parse_any_system(doc, "fuzz.json");
  } catch (const gpurt::InputError&) {
    return 0;
  }
  (void)gpurt::to_json(system);
  (void)gpurt::to_smlp(system);
  (void)gpurt::to_rtgpu(system);
  (void)gpurt::to_pbs(system);
  (void)gpurt::to_fifo(system);
  return 0;
}
