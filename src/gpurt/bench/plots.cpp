#include "gpurt/bench/plots.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace fs = std::filesystem;

std::vector<Nanos> response_times(const InstanceTrace& instance) {
  std::vector<Nanos> out;
  for (const IterationRecord& it : instance.iterations)
    if (it.has_execute) out.push_back(it.execute_end - it.execute_start);
  return out;
}

Chart response_time_cdf(const Trace& trace) {
  Chart c;
  c.title = trace.scenario_name.empty() ? "Response times" : "Response times: " + trace.scenario_name;
  c.x_label = "response time (ms)";
  c.y_label = "fraction of iterations";
  c.note = trace.simulated ? "simulated" : "";
  for (const InstanceTrace& inst : trace.instances) {
    std::vector<double> ms;
    for (Nanos r : response_times(inst)) ms.push_back(static_cast<double>(r.count()) / 1e6);
    if (ms.empty()) continue;
    c.series.push_back(cdf_series(inst.label.empty() ? inst.log_name : inst.label, std::move(ms)));
  }
  if (c.series.empty()) throw InputError("gpurt plot --cdf", "no result file holds an iteration to plot");
  return c;
}

namespace {

// The root <svg ...> element's numeric attribute `name` (render_svg_timeline writes width and
// height there).
double root_attribute(const std::string& svg, const std::string& name) {
  const std::size_t root = svg.find("<svg");
  const std::size_t at = svg.find(" " + name + "=\"", root);
  if (root == std::string::npos || at == std::string::npos) throw Error("side_by_side_svg: no root " + name);
  return std::stod(svg.substr(at + name.size() + 3));
}

// From the first event (launch or block start) to the last block end; 0 without blocks.
Nanos time_span(const Trace& trace) {
  std::int64_t t0 = std::numeric_limits<std::int64_t>::max(), t1 = std::numeric_limits<std::int64_t>::min();
  for (const InstanceTrace& inst : trace.instances)
    for (const IterationRecord& it : inst.iterations)
      for (const KernelRecord& k : it.kernels) {
        t0 = std::min(t0, k.launch_before.count());
        for (const BlockRecord& b : k.blocks) {
          t0 = std::min(t0, b.start.count());
          t1 = std::max(t1, b.end.count());
        }
      }
  return t1 > t0 ? Nanos{t1 - t0} : Nanos{0};
}

}  // namespace

std::string origin_word(const Trace& trace) { return trace.simulated ? "simulated" : "measured"; }

std::string side_by_side_svg(const Trace& left, const Trace& right, const std::string& left_title,
                             const std::string& right_title) {
  SvgOptions lo, ro;
  lo.title = left_title.empty() ? fmt::format("predicted ({}): {}", origin_word(left), left.scenario_name)
                                : left_title;
  ro.title = right_title.empty()
                 ? fmt::format("{}: {}", right.simulated ? "simulated" : "measured", right.scenario_name)
                 : right_title;
  // One time scale for both: the same span from each picture's first event (the two clocks
  // need not share an origin), so equal widths mean equal times.
  lo.span = ro.span = std::max(time_span(left), time_span(right));
  const std::string a = render_svg_timeline(left, lo), b = render_svg_timeline(right, ro);
  const double wa = root_attribute(a, "width"), ha = root_attribute(a, "height");
  const double wb = root_attribute(b, "width"), hb = root_attribute(b, "height");
  // Nested <svg> elements keep each picture's own coordinates; x shifts the right one.
  auto nested = [](const std::string& svg, double x) {
    std::string body = svg.substr(svg.find("<svg"));
    body.replace(0, 4, fmt::format("<svg x=\"{:.0f}\" y=\"0\"", x));
    return body;
  };
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\">\n{}{}</svg>\n",
      wa + wb, std::max(ha, hb), nested(a, 0), nested(b, wa));
}

std::vector<std::string> result_files_in(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, "is not a folder of result files");
  // Sub-folders too, as deep as a writer may put them (a config's log_name may name folders,
  // "sub/alone.json"). Folder links are not followed (a loop would never end); a *.json that
  // cannot be looked at (a link loop, a dangling link) is an error, not skipped.
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(dir, ec), end;
  if (ec) throw InputError(dir, "cannot be read: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw InputError(dir, "cannot be read: " + ec.message());
    if (it->path().extension() != ".json") continue;
    std::error_code type;
    const bool regular = it->is_regular_file(type);
    if (type) throw InputError(it->path().string(), "cannot be read: " + type.message());
    if (regular) files.push_back(it->path().string());
  }
  if (ec) throw InputError(dir, "cannot be read: " + ec.message());
  if (files.empty()) throw InputError(dir, "holds no result files (*.json)");
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace gpurt
