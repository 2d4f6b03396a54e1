#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "gpurt/trace/render.hpp"
#include "gpurt/trace/svg_util.hpp"

namespace gpurt {

namespace {

struct Placed {
  const KernelRecord* kernel;
  int block;
  int instance;
  BlockRecord rec;
  int offset = 0;  ///< threads below this block in its SM lane
};

// Stacks each SM's blocks so that concurrent blocks never overlap: first fit, by start time.
void stack(std::vector<Placed>& blocks) {
  std::sort(blocks.begin(), blocks.end(), [](const Placed& a, const Placed& b) {
    return a.rec.start != b.rec.start ? a.rec.start < b.rec.start : a.block < b.block;
  });
  std::vector<const Placed*> active;
  for (Placed& p : blocks) {
    std::erase_if(active, [&](const Placed* q) { return q->rec.end <= p.rec.start; });
    std::sort(active.begin(), active.end(),
              [](const Placed* a, const Placed* b) { return a->offset < b->offset; });
    int offset = 0;
    for (const Placed* q : active) {
      if (q->offset - offset >= p.kernel->thread_count) break;
      offset = std::max(offset, q->offset + q->kernel->thread_count);
    }
    p.offset = offset;
    active.push_back(&p);
  }
}

// Exact seconds of a time in whole nanoseconds (a double would round 1.7e9 s to microseconds).
std::string seconds_text(Nanos t) {
  const std::int64_t ns = t.count();
  const std::uint64_t abs_ns = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  return fmt::format("{}{}.{:09}", ns < 0 ? "-" : "", abs_ns / 1'000'000'000, abs_ns % 1'000'000'000);
}

double nice_step(double span) {
  const double raw = span / 8.0;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * mag) return m * mag;
  }
  return 10.0 * mag;
}

}  // namespace

std::string render_svg_timeline(const Trace& trace, const SvgOptions& options) {
  const int sms = std::max(1, trace.sms);
  std::vector<std::vector<Placed>> lanes(static_cast<std::size_t>(sms));
  std::int64_t t0 = std::numeric_limits<std::int64_t>::max(), t1 = std::numeric_limits<std::int64_t>::min();
  struct Release {
    Nanos at;
    int instance;
  };
  std::vector<Release> releases;
  for (std::size_t i = 0; i < trace.instances.size(); ++i) {
    for (const IterationRecord& it : trace.instances[i].iterations) {
      for (const KernelRecord& k : it.kernels) {
        releases.push_back({k.launch_before, static_cast<int>(i)});
        t0 = std::min(t0, k.launch_before.count());
        for (std::size_t b = 0; b < k.blocks.size(); ++b) {
          const BlockRecord& r = k.blocks[b];
          if (r.sm < 0 || r.sm >= sms) continue;
          lanes[static_cast<std::size_t>(r.sm)].push_back(
              Placed{&k, static_cast<int>(b), static_cast<int>(i), r});
          t0 = std::min(t0, r.start.count());
          t1 = std::max(t1, r.end.count());
        }
      }
    }
  }
  if (t1 < t0) t0 = 0, t1 = 1;
  if (t1 == t0) ++t1;
  if (options.span.count() > t1 - t0 && t0 <= std::numeric_limits<std::int64_t>::max() - options.span.count())
    t1 = t0 + options.span.count();
  for (auto& lane : lanes) stack(lane);

  const int width = std::max(400, options.width);
  const double left = 70, right = 20, top = 40;
  const double lane_h = std::clamp(640.0 / sms, 10.0, 160.0);
  const double plot_w = width - left - right;
  const double plot_h = lane_h * sms;
  const double legend_rows = static_cast<double>(trace.instances.size());
  const double height = top + plot_h + 70 + 16 * legend_rows;
  const double span = static_cast<double>(t1 - t0);
  auto x = [&](Nanos t) { return left + plot_w * static_cast<double>(t.count() - t0) / span; };
  const double capacity = std::max(1, trace.max_threads_per_sm);

  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{:.0f}\" font-family=\"sans-serif\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      width, height);
  const std::string title =
      !options.title.empty()
          ? options.title
          : fmt::format("{}{}", trace.scenario_name,
                        trace.simulated ? fmt::format(" (simulated by gpurt on {})", trace.platform)
                                        : std::string(" (measured)"));
  out += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"15\">{}</text>\n", left, xml_escape(title));
  // SM lanes.
  for (int sm = 0; sm < sms; ++sm) {
    const double y = top + lane_h * (sms - 1 - sm);
    out += fmt::format(
        "<rect x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" stroke=\"#ccc\"/>\n",
        left, y, plot_w, lane_h, sm % 2 ? "#f7f7f7" : "#ffffff");
    if (lane_h >= 9) {
      out +=
          fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"{:.0f}\" text-anchor=\"end\">SM {}</text>\n",
                      left - 6, y + lane_h / 2 + 4, std::min(12.0, lane_h - 1), sm);
    }
  }
  // Blocks: height = share of the SM's threads; stacked so concurrent blocks do not overlap.
  for (int sm = 0; sm < sms; ++sm) {
    const double lane_bottom = top + lane_h * (sms - sm);
    for (const Placed& p : lanes[static_cast<std::size_t>(sm)]) {
      const double h = lane_h * std::min(1.0, p.kernel->thread_count / capacity);
      const double y = lane_bottom - lane_h * std::min(1.0, (p.offset + p.kernel->thread_count) / capacity);
      const double bx = x(p.rec.start), bw = std::max(0.5, x(p.rec.end) - bx);
      const int stream = trace.instances[static_cast<std::size_t>(p.instance)].stream;
      const char* colour = kPalette[static_cast<std::size_t>(stream) % std::size(kPalette)];
      out += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\" "
          "fill-opacity=\"0.75\" "
          "stroke=\"black\" stroke-width=\"0.5\"><title>{}:{} SM {} [{} s, {} s]</title></rect>\n",
          bx, y, bw, h, colour, xml_escape(p.kernel->name), p.block, sm, seconds_text(p.rec.start),
          seconds_text(p.rec.end));
      const std::string label = fmt::format("{}:{}", p.kernel->name, p.block);
      const double font = std::min(11.0, h * 0.8);
      if (font >= 6 && bw > font * 0.6 * static_cast<double>(label.size())) {
        out += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" font-size=\"{:.1f}\">{}</text>\n", bx + 2,
                           y + h / 2 + font / 3, font, xml_escape(label));
      }
    }
  }
  // Time axis in seconds, and kernel releases as arrows under it.
  const double axis_y = top + plot_h;
  out += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"black\"/>\n", left,
                     axis_y, left + plot_w, axis_y);
  // Ticks counted by index from an origin: 0, or, for absolute clock times (a measured file may
  // hold them), t0 itself, so that the labels differ and `s += step` cannot stall at 1e9 s.
  const std::int64_t origin = static_cast<double>(t0) > 10 * span ? t0 : 0;
  const double step = nice_step(span / 1e9);
  const double first = static_cast<double>(t0 - origin) / 1e9, last = static_cast<double>(t1 - origin) / 1e9;
  for (auto i = static_cast<std::int64_t>(std::ceil(first / step - 1e-9));
       static_cast<double>(i) * step <= last + step * 1e-9; ++i) {
    const double value = static_cast<double>(i) * step;
    const double tx = left + plot_w * (value * 1e9 - static_cast<double>(t0 - origin)) / span;
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"black\"/>"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" font-size=\"11\" text-anchor=\"middle\">{4:g}</text>\n",
        tx, axis_y, axis_y + 5, axis_y + 36, std::abs(value) < step * 1e-6 ? 0.0 : value);
  }
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n",
                     left + plot_w, axis_y + 50,
                     origin == 0 ? std::string("time (s)")
                                 : "time (s) after " + seconds_text(Nanos{origin}) + " s on the clock");
  for (const Release& r : releases) {
    if (r.at.count() < t0 || r.at.count() > t1) continue;
    const int stream = trace.instances[static_cast<std::size_t>(r.instance)].stream;
    const char* colour = kPalette[static_cast<std::size_t>(stream) % std::size(kPalette)];
    const double rx = x(r.at);
    out += fmt::format(
        "<path d=\"M{0:.1f},{1:.1f} L{0:.1f},{2:.1f} M{3:.1f},{4:.1f} L{0:.1f},{2:.1f} L{5:.1f},{4:.1f}\" "
        "stroke=\"{6}\" stroke-width=\"2\" fill=\"none\"/>\n",
        rx, axis_y + 24, axis_y + 8, rx - 4, axis_y + 13, rx + 4, colour);
  }
  // Legend: one row per instance (stream colour, label).
  for (std::size_t i = 0; i < trace.instances.size(); ++i) {
    const InstanceTrace& inst = trace.instances[i];
    const double ly = axis_y + 62 + 16 * static_cast<double>(i);
    const char* colour = kPalette[static_cast<std::size_t>(inst.stream) % std::size(kPalette)];
    out += fmt::format(
        "<rect x=\"{}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\" fill-opacity=\"0.75\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" font-size=\"12\">{}</text>\n",
        left, ly - 10, colour, left + 18, ly,
        xml_escape(fmt::format("{} ({}, stream {})", inst.label.empty() ? inst.log_name : inst.label,
                               inst.benchmark_name, inst.stream)));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace gpurt
