// cuda_scheduling_examiner result files: one JSON document per benchmark instance, times in
// seconds (Dissertation Fig. 3.8; the examiner README's "Output File Format").
#pragma once

#include <string>
#include <vector>

#include "gpurt/core/json.hpp"
#include "gpurt/trace/trace.hpp"

namespace gpurt {

/// The result document of one instance.
Json examiner_result(const Trace& trace, const InstanceTrace& instance);

/// Reads result files (simulated or measured on a GPU) into one trace. Throws InputError.
Trace load_examiner_results(const std::vector<std::string>& paths);

}  // namespace gpurt
