// Pictures and interactive traces of a Trace (simulated or measured).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gpurt/core/json.hpp"
#include "gpurt/trace/trace.hpp"

namespace gpurt {

struct SvgOptions {
  int width = 1200;   ///< pixels
  std::string title;  ///< default: the scenario name and whether simulated
  /// The time the axis spans from the first event; 0: up to the last event. Two pictures drawn
  /// with the same span share a scale (side_by_side_svg); a shorter span than the trace's is
  /// widened to it.
  Nanos span{0};
};

/// A block timeline in the style of the Dissertation's Figure 3.9: one lane per SM, each block
/// a rectangle as wide as it ran and as tall as its share of the SM's threads, labelled
/// "kernel:block", coloured by stream, kernel releases as arrows under the time axis, legend.
std::string render_svg_timeline(const Trace& trace, const SvgOptions& options = {});

/// Chrome/Perfetto trace-event JSON: one track per SM (blocks) and one per instance (iterations).
Json perfetto_trace(const Trace& trace);

/// perfetto_trace(trace).dump(), the same bytes, built one event at a time (what files are
/// written from: no JSON tree of every block).
std::string perfetto_trace_text(const Trace& trace);

/// The most blocks a timeline picture or Perfetto trace draws by default (--max-drawn-blocks).
inline constexpr std::uint64_t kDefaultMaxDrawnBlocks = 1'000'000;

/// Blocks recorded in the trace (what a picture of it draws).
std::uint64_t drawn_blocks(const Trace& trace);

/// Throws Error naming --max-drawn-blocks when the trace holds more than `max_blocks` blocks.
void check_drawable(const Trace& trace, std::uint64_t max_blocks);

}  // namespace gpurt
