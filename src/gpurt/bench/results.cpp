#include "gpurt/bench/results.hpp"

#include <algorithm>
#include <filesystem>

#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/trace/examiner_json.hpp"

namespace gpurt {

namespace fs = std::filesystem;

std::string result_path(const std::string& out_dir, const std::string& log_name) {
  const fs::path p(log_name);
  if (p.is_absolute()) return p.string();
  return (fs::path(out_dir) / p).string();
}

std::vector<OutputFile> result_files(const Trace& trace, const std::string& out_dir) {
  std::vector<OutputFile> files;
  for (const InstanceTrace& inst : trace.instances) {
    files.emplace_back(result_path(out_dir, inst.log_name), examiner_result_text(trace, inst) + "\n");
  }
  return files;
}

void check_run_outputs(const Scenario& scenario, const std::string& out_dir,
                       const std::vector<std::pair<std::string, std::string>>& others,
                       const std::vector<std::string>& inputs) {
  std::vector<std::pair<std::string, std::string>> outputs;
  const fs::path out_key = output_key(out_dir);
  for (const ScenarioInstance& inst : scenario.instances) {
    const std::string path = result_path(out_dir, inst.log_name);
    const std::string option = "--out (the result file " + inst.log_name + ")";
    // A link inside the folder (the file, or a folder on its way) that leads out of it would
    // write there: a stale or planted link overwrote a file outside --out.
    const fs::path key = output_key(path);
    if (!key_inside(key, out_key))
      throw InputError("command line", option, path,
                       "leads out of the result folder " + out_dir + " through a link (to " + key.string() +
                           "); remove the link or give another folder");
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);  // through a symbolic link
    if (fs::is_directory(status)) throw InputError("command line", option, path, "is a folder");
    check_output_file_name(path, option);  // the folder may not exist yet
    if (fs::exists(status) && !fs::is_regular_file(status))
      throw InputError("command line", option, path, "exists and is not a regular file");
    // The folders it goes in, where they exist, must be folders (a log_name "x/a.json" where x
    // is a file would fail only when the results are written, after the run).
    for (fs::path up = fs::path(path).parent_path(); !up.empty(); up = up.parent_path()) {
      const fs::file_status s = fs::status(up, ec);
      if (!fs::exists(s) && fs::is_symlink(fs::symlink_status(up, ec)))
        throw InputError("command line", option, path, up.string() + " is a link that leads nowhere");
      if (fs::exists(s)) {
        if (!fs::is_directory(s))
          throw InputError("command line", option, path, up.string() + " is not a folder to put it in");
        break;
      }
      if (up == up.parent_path()) break;
    }
    outputs.emplace_back(option, path);
  }
  outputs.insert(outputs.end(), others.begin(), others.end());
  check_distinct_outputs(outputs);
  for (const auto& [option, path] : outputs)
    if (!path.empty()) check_output_not_input(path, inputs, option);
}

void write_outputs(const std::vector<OutputFile>& files, const std::string& out_dir) {
  std::vector<fs::path> created;  // the folders made here, each after the one it lies in
  const auto make = [&created](const fs::path& dir, const std::string& what) {
    std::error_code ec;
    std::vector<fs::path> missing;
    for (fs::path p = dir; !p.empty() && !fs::exists(fs::symlink_status(p, ec)); p = p.parent_path()) {
      missing.push_back(p);
      if (p == p.parent_path()) break;
    }
    fs::create_directories(dir, ec);
    if (ec) throw Error(dir.string() + ": cannot create " + what + ": " + ec.message());
    created.insert(created.end(), missing.rbegin(), missing.rend());
  };
  try {
    make(out_dir, "the result folder");
    for (const auto& file : files) {
      const fs::path parent = fs::path(file.first).parent_path();
      if (!parent.empty()) make(parent, "the folder");
    }
    write_files_atomically(files);
  } catch (...) {
    // All or none: a failed write (a full disk) left the folders it had made behind.
    std::error_code ec;
    for (auto it = created.rbegin(); it != created.rend(); ++it) fs::remove(*it, ec);  // empty ones only
    throw;
  }
}

std::vector<std::string> write_results(const Trace& trace, const std::string& out_dir) {
  const std::vector<OutputFile> files = result_files(trace, out_dir);
  write_outputs(files, out_dir);
  std::vector<std::string> paths;
  for (const auto& file : files) paths.push_back(file.first);
  return paths;
}

std::vector<InstanceSummary> summarize(const Trace& trace, const std::string& out_dir) {
  std::vector<InstanceSummary> rows;
  for (const InstanceTrace& inst : trace.instances) {
    InstanceSummary r;
    r.name = inst.label.empty() ? inst.log_name : inst.label;
    r.plugin = inst.benchmark_name;
    Nanos total{0};
    for (const IterationRecord& it : inst.iterations) {
      r.kernels += static_cast<std::int64_t>(it.kernels.size());
      const Nanos e = it.execute_end - it.execute_start;
      r.worst_execute = std::max(r.worst_execute, e);
      total += e;
    }
    r.iterations = static_cast<std::int64_t>(inst.iterations.size());
    r.mean_execute = r.iterations ? Nanos{total.count() / r.iterations} : Nanos{0};
    r.output = result_path(out_dir, inst.log_name);
    rows.push_back(std::move(r));
  }
  return rows;
}

Json summary_json(const Trace& trace, const std::vector<InstanceSummary>& rows) {
  Json summary = Json::array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const InstanceSummary& r = rows[i];
    summary.push_back(Json{{"label", trace.instances[i].label},
                           {"plugin", r.plugin},
                           {"iterations", r.iterations},
                           {"kernels", r.kernels},
                           {"mean_execute_s", from_nanos(r.mean_execute, TimeUnit::s)},
                           {"worst_execute_s", from_nanos(r.worst_execute, TimeUnit::s)},
                           {"output", r.output}});
  }
  return summary;
}

}  // namespace gpurt
