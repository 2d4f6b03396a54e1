// Result files of a run, simulated or measured: one examiner result JSON per benchmark instance
// (Dissertation §3.3.2 step 6, Fig. 3.8), written the same way by `gpurt simulate` and
// `gpurt bench`, so the two backends' files differ only in their numbers.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/core/time.hpp"
#include "gpurt/model/scenario.hpp"
#include "gpurt/trace/trace.hpp"

namespace gpurt {

/// Where instance `log_name` is written under `out_dir` (an absolute log_name is kept).
std::string result_path(const std::string& out_dir, const std::string& log_name);

/// Every instance's examiner result file under `out_dir` (path and content), in instance order,
/// without writing anything: a command adds its other outputs and writes them all or none
/// (write_outputs).
std::vector<OutputFile> result_files(const Trace& trace, const std::string& out_dir);

/// Before a run that writes the result file of every instance of `scenario` under `out_dir` and
/// the `others` (option, path; an empty path is no output): refuses, with InputError (exit 2),
/// a result file that exists and is not a regular file (a folder, a device), two outputs naming
/// one file (an --svg onto a result file), and an output that is one of `inputs` (the config,
/// the platform file). Call it before the run, after check_output_dir(out_dir).
void check_run_outputs(const Scenario& scenario, const std::string& out_dir,
                       const std::vector<std::pair<std::string, std::string>>& others,
                       const std::vector<std::string>& inputs);

/// Creates `out_dir` and the folders `files` lie in (log names with folders) and writes the files
/// all or none (write_files_atomically); on failure the folders it created are removed again.
void write_outputs(const std::vector<OutputFile>& files, const std::string& out_dir);

/// Writes every instance's examiner result file under `out_dir` (created when missing), all or
/// none. Call only after the whole run succeeded, so a failed run leaves no files.
/// Returns the paths in instance order. Throws gpurt::Error when a file cannot be written.
std::vector<std::string> write_results(const Trace& trace, const std::string& out_dir);

/// Per-instance numbers for the summary table of `gpurt simulate` / `gpurt bench`.
struct InstanceSummary {
  std::string name;  ///< label, or log_name when unlabelled
  std::string plugin;
  std::int64_t iterations = 0, kernels = 0;
  Nanos mean_execute{0}, worst_execute{0};  ///< execute phase (response time of an iteration)
  std::string output;                       ///< result file path
};

std::vector<InstanceSummary> summarize(const Trace& trace, const std::string& out_dir);

/// The summary as JSON objects (label, plugin, iterations, kernels, mean_execute_s,
/// worst_execute_s, output): the `--json` output of both commands.
Json summary_json(const Trace& trace, const std::vector<InstanceSummary>& rows);

}  // namespace gpurt
