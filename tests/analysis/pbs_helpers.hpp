// Shared by the PBS tests: building gpurt/pbs@1 systems in code.
#pragma once

#include <string>

#include "gpurt/core/json.hpp"
#include "gpurt/model/pbs_task.hpp"

namespace gpurt::test {

/// The platform of PBS Example 2.1: two SMs of 256 threads.
inline Json two_sm_platform() {
  return Json::parse(
      R"({"format": "gpurt/platform@1", "id": "two-sm-256", "name": "two SMs", "vendor": "nvidia",
    "sms": 2, "max_threads": 256, "max_blocks": 32, "registers": 65536, "shared_memory": 65536})");
}

/// The seed's Figure 1: T = (4, 5, 10), D = T, C = (1, 3, 3), batch completions from the table;
/// every kernel is one 64-thread block on an H100, so any batch is eligible.
inline PbsSystem figure1() {
  const Json doc = Json::parse(R"({"format": "gpurt/pbs@1", "time_unit": "ms", "platform": "h100",
    "tasks": [
      {"name": "t1", "period": 4, "wcet": 1, "blocks": 1, "threads": 64},
      {"name": "t2", "period": 5, "wcet": 3, "blocks": 1, "threads": 64},
      {"name": "t3", "period": 10, "wcet": 3, "blocks": 1, "threads": 64}],
    "batches": [
      {"tasks": ["t1", "t2"], "completion": 4}, {"tasks": ["t1", "t3"], "completion": 4},
      {"tasks": ["t2", "t3"], "completion": 4}, {"tasks": ["t1", "t2", "t3"], "completion": 6}]})");
  return parse_pbs_system(doc, "figure1.json");
}

}  // namespace gpurt::test
