// Pictures of bench results (Dissertation §3.3: timelines and response-time CDFs): the CDF of
// each instance's response times, and a predicted and a measured timeline of one config side
// by side. Drawn with trace/chart and trace/render; deterministic SVG.
#pragma once

#include <string>
#include <vector>

#include "gpurt/trace/chart.hpp"
#include "gpurt/trace/render.hpp"
#include "gpurt/trace/trace.hpp"

namespace gpurt {

/// Response time of every recorded iteration of `instance`: its execute phase (the examiner's
/// execute_times, launch to synchronize), in ns, in iteration order.
std::vector<Nanos> response_times(const InstanceTrace& instance);

/// One CDF line per instance (label, else log name) of its response times in milliseconds.
/// Throws InputError when no instance has an iteration.
Chart response_time_cdf(const Trace& trace);

/// "simulated" or "measured", as the trace's files say.
std::string origin_word(const Trace& trace);

/// Two timelines (render_svg_timeline) in one SVG document, `left` on the left, on one time
/// scale (the longer span of the two); each keeps its own title (default: "predicted
/// (simulated|measured)" / "simulated|measured", as each trace's files say), so differences in
/// block placement and timing of the same config can be read off directly.
std::string side_by_side_svg(const Trace& left, const Trace& right, const std::string& left_title = "",
                             const std::string& right_title = "");

/// The result files (*.json, sorted by path) in `dir` and its sub-folders (links to folders not
/// followed). Throws InputError naming the folder when it is missing, unreadable
/// or holds none, and naming the file when a *.json cannot be looked at (a link loop).
std::vector<std::string> result_files_in(const std::string& dir);

}  // namespace gpurt
