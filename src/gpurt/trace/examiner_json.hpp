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

/// examiner_result(...).dump(2), the same bytes, without building the per-block JSON tree (what
/// result files are written from: memory follows the text, not a tree of every block).
std::string examiner_result_text(const Trace& trace, const InstanceTrace& instance);

/// Reads result files (simulated or measured on a GPU) into one trace. Throws InputError.
Trace load_examiner_results(const std::vector<std::string>& paths);

}  // namespace gpurt
