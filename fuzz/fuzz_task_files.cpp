// libFuzzer harness for the task-file readers other than SMLP, built once per format
// (GPURT_FUZZ_FORMAT = 1 rtgpu, 2 pbs, 3 fifo): any byte string either parses or throws
// InputError; anything else (a crash, a sanitizer report, another exception) is a bug. Only the
// cheap analyses run on what parses (the searches are exponential by design).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_dict.hpp"
#include "gpurt/analysis/fifo.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/model/pbs_task.hpp"
#include "gpurt/model/rtgpu_task.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const gpurt::Json doc = gpurt::parse_json(text, "fuzz.json");
#if GPURT_FUZZ_FORMAT == 1
    (void)gpurt::parse_rtgpu_system(doc, "fuzz.json");
#elif GPURT_FUZZ_FORMAT == 2
    (void)gpurt::parse_pbs_system(doc, "fuzz.json");
#else
    (void)gpurt::analyse_fifo(gpurt::parse_fifo_system(doc, "fuzz.json"));
#endif
  } catch (const gpurt::InputError&) {
  }
  return 0;
}
