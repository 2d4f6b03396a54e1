// report_html.hpp: the self-contained HTML report. Tables in plain HTML, figures as inline SVG:
// job timelines drawn here (one lane per task), CDFs by trace/chart.hpp with each bound as a
// vertical line. No script, no external resource.
#include "gpurt/exp/report_html.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/trace/chart.hpp"
#include "gpurt/trace/svg_util.hpp"

namespace gpurt {

namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1300px}"
    "table{border-collapse:collapse;margin:.5em 0 1.5em}"
    "th,td{border:1px solid #bbb;padding:.25em .6em;text-align:right}"
    "th{background:#eee}td.l,th.l{text-align:left}"
    ".ok{color:#1a7f37;font-weight:bold}.bad{color:#c62828;font-weight:bold}.na{color:#777}"
    "figure{margin:0 0 1.5em}figcaption{font-size:.9em;color:#555}";

std::string num(Nanos t, TimeUnit u) { return fmt::format("{}", from_nanos(t, u)); }
std::string num(const std::optional<Nanos>& t, TimeUnit u) { return t ? num(*t, u) : std::string("–"); }

std::string verdict(const ReportAnalysis& a) {
  if (!a.applicable) return "<span class=\"na\">not applicable</span>";
  if (!a.schedulable) return "<span class=\"na\">no verdict</span>";
  return *a.schedulable ? "<span class=\"ok\">schedulable</span>"
                        : "<span class=\"bad\">not schedulable</span>";
}

std::string analyses_table(const Report& r) {
  const TimeUnit u = r.time_unit;
  std::string out = fmt::format(
      "<h2>Analyses</h2>\n<table id=\"analyses\">\n<tr><th class=\"l\">analysis</th><th "
      "class=\"l\">verdict</th>"
      "<th class=\"l\">task</th><th>bound ({0})</th><th>deadline ({0})</th><th class=\"l\">note</th></tr>\n",
      to_string(u));
  for (const ReportAnalysis& a : r.analyses) {
    const std::string head = fmt::format("<td class=\"l\" title=\"{}\">{}</td><td class=\"l\">{}</td>",
                                         xml_escape(a.source), xml_escape(a.name), verdict(a));
    if (!a.applicable || a.tasks.empty()) {
      out += fmt::format("<tr>{}<td class=\"l\" colspan=\"4\">{}</td></tr>\n", head,
                         xml_escape(a.applicable ? a.detail : a.why));
      continue;
    }
    for (const ReportTaskBound& b : a.tasks) {
      out += fmt::format("<tr>{}<td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>\n",
                         head, xml_escape(b.name), num(b.bound, u), num(b.deadline, u), xml_escape(b.note));
    }
  }
  return out + "</table>\n";
}

std::string simulated_table(const Report& r) {
  const TimeUnit u = r.time_unit;
  std::string out = fmt::format(
      "<h2>Simulated</h2>\n<table id=\"simulated\">\n<tr><th class=\"l\">policy</th><th>GPU busy</th>"
      "<th class=\"l\">task</th><th>jobs</th><th>max ({0})</th><th>mean ({0})</th><th>misses</th></tr>\n",
      to_string(u));
  for (const ReportSimulation& s : r.simulated) {
    const std::string util = s.gpu_utilisation ? fmt::format("{:.1f} %", 100 * *s.gpu_utilisation) : "–";
    if (!s.ran) {
      out += fmt::format(
          "<tr><td class=\"l\">{}</td><td class=\"na\">–</td><td class=\"l na\" colspan=\"5\">not run: "
          "{}</td></tr>\n",
          xml_escape(s.policy), xml_escape(s.why));
      continue;
    }
    for (const ReportSimTask& t : s.tasks) {
      out += fmt::format(
          "<tr><td class=\"l\">{}</td><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td class=\"{}\">{}</td></tr>\n",
          xml_escape(s.policy), util, xml_escape(t.name), t.jobs, num(t.max_response, u),
          num(t.mean_response, u), t.misses > 0 ? "bad" : "", t.misses);
    }
  }
  return out + "</table>\n";
}

// --measured DIR: the run's figures beside the simulated ones, and each max above a bound.
std::string measured_table(const Report& r) {
  if (!r.measured) return "";
  const TimeUnit u = r.time_unit;
  const ReportMeasured& m = *r.measured;
  std::string out = fmt::format(
      "<h2>Measured</h2>\n<p>Result files in {0} (no arbitration){2}.</p>\n<table id=\"measured\">\n<tr><th "
      "class=\"l\">task</th><th>jobs</th><th>max ({1})</th><th>mean ({1})</th><th>misses</th></tr>\n",
      xml_escape(m.source), to_string(u),
      m.simulated ? ": <strong>simulated</strong> result files (--backend sim), not a GPU run" : "");
  for (const ReportMeasuredTask& t : m.tasks) {
    out += fmt::format(
        "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>\n",
        xml_escape(t.name), t.jobs, num(t.max_response, u), num(t.mean_response, u),
        t.misses > 0 ? "bad" : "", t.misses);
  }
  out += "</table>\n";
  for (const ReportMeasuredAbove& a : m.above) {
    out += fmt::format(
        "<p class=\"bad\">{}: measured max {} &gt; {} bound {} (the bound assumes its policy "
        "and the model's WCETs).</p>\n",
        xml_escape(a.task), num(a.measured, u), xml_escape(a.analysis), num(a.bound, u));
  }
  return out;
}

// One lane per task: grey from release to GPU start (CPU before and waiting), the task's colour
// while its kernel runs, dark grey for the CPU segment after it; a tick at each release.
std::string timeline_svg(const ReportSimulation& s, TimeUnit u) {
  // Window: until the 21st release of the fastest task (at most 20 jobs a lane), or the span.
  Nanos window = s.span;
  for (const ReportSimTask& t : s.tasks) {
    if (t.timeline.size() > 20) {
      std::vector<Nanos> rel;
      for (const ReportJob& j : t.timeline) rel.push_back(j.release);
      std::nth_element(rel.begin(), rel.begin() + 20, rel.end());
      window = std::min(window, rel[20]);
    }
  }
  const bool any =
      std::any_of(s.tasks.begin(), s.tasks.end(), [](const ReportSimTask& t) { return !t.timeline.empty(); });
  if (window.count() <= 0 || !any) return "";
  const int left = 110, width = 1000, lane = 26, top = 10;
  const int height = top + lane * static_cast<int>(s.tasks.size()) + 40;
  const double scale = width / static_cast<double>(window.count());
  const auto x = [&](Nanos t) { return left + scale * static_cast<double>(std::min(t, window).count()); };
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"{0}\" height=\"{1}\" viewBox=\"0 "
      "0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n",
      left + width + 20, height);
  for (std::size_t i = 0; i < s.tasks.size(); ++i) {
    const int y = top + lane * static_cast<int>(i);
    const char* colour = kPalette[i % std::size(kPalette)];
    // About 15 characters fit left of the lanes; a longer name is cut, whole in its tooltip.
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", left - 6, y + 17,
                       clipped_text(s.tasks[i].name, 15));
    for (const ReportJob& j : s.tasks[i].timeline) {
      if (j.release >= window) continue;
      const auto bar = [&](Nanos a, Nanos b, const char* fill) {
        if (b > a && a < window)
          out += fmt::format("<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"16\" fill=\"{}\"/>\n",
                             x(a), y + 4, std::max(0.5, x(b) - x(a)), fill);
      };
      bar(j.release, j.start, "#d0d0d0");
      bar(j.start, j.end, colour);
      bar(j.end, j.finish, "#777");
      out += fmt::format("<line x1=\"{0:.2f}\" x2=\"{0:.2f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#000\"/>\n",
                         x(j.release), y + 1, y + 22);
    }
  }
  const int axis = top + lane * static_cast<int>(s.tasks.size()) + 6;
  out += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#444\"/>\n", left,
                     left + width, axis);
  // Ticks at a round step (1, 2 or 5 times a power of ten of the unit), about five of them.
  const double span_u = from_nanos(window, u);
  double step = std::pow(10.0, std::floor(std::log10(span_u / 5)));
  for (double m : {2.0, 5.0, 10.0})
    if (span_u / step > 7) step = std::pow(10.0, std::floor(std::log10(span_u / 5))) * m;
  for (int k = 0; k * step <= span_u; ++k) {
    const double px = left + width * (k * step / span_u);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n", px, axis + 16,
                       k * step);
  }
  out +=
      fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n</svg>\n", left + width - 40, axis + 30, to_string(u));
  return out;
}

std::string timelines(const Report& r) {
  std::string out = "<h2>Timelines</h2>\n";
  int drawn = 0;
  for (const ReportSimulation& s : r.simulated) {
    if (!s.ran) continue;
    const std::string svg = timeline_svg(s, r.time_unit);
    if (svg.empty()) continue;
    out += fmt::format(
        "<figure>\n{}<figcaption>{} (simulated): release ticks; grey: CPU before the kernel and waiting for "
        "the "
        "GPU; colour: the kernel; dark grey: CPU after it</figcaption>\n</figure>\n",
        svg, xml_escape(s.policy));
    ++drawn;
  }
  if (drawn == 0) out += "<p>No simulated policy recorded its jobs.</p>\n";
  return out;
}

std::string cdfs(const Report& r) {
  const TimeUnit u = r.time_unit;
  std::string out = "<h2>Response-time CDFs</h2>\n";
  std::vector<std::string> names;
  for (const ReportSimulation& s : r.simulated)
    for (const ReportSimTask& t : s.tasks)
      if (std::find(names.begin(), names.end(), t.name) == names.end()) names.push_back(t.name);
  int drawn = 0;
  for (const std::string& name : names) {
    Chart c;
    c.title = "Response times of " + name;
    c.x_label = fmt::format("response time ({})", to_string(u));
    c.y_label = "fraction of jobs";
    c.note = "simulated; vertical lines: bounds";
    for (const ReportSimulation& s : r.simulated) {
      for (const ReportSimTask& t : s.tasks) {
        if (t.name != name || t.responses.empty()) continue;
        std::vector<double> xs;
        for (Nanos v : t.responses) xs.push_back(from_nanos(v, u));
        c.series.push_back(cdf_series(s.policy, std::move(xs)));
      }
    }
    if (c.series.empty()) continue;
    for (const ReportAnalysis& a : r.analyses) {
      for (const ReportTaskBound& b : a.tasks) {
        if (b.name == name && b.bound)
          c.series.push_back(
              ChartSeries{"bound: " + a.name, {from_nanos(*b.bound, u), from_nanos(*b.bound, u)}, {0, 1}});
      }
    }
    out += "<figure class=\"cdf\">\n" + chart_svg(c) + "</figure>\n";
    ++drawn;
  }
  if (drawn == 0) out += "<p>No simulated policy recorded per-job response times.</p>\n";
  return out;
}

}  // namespace

std::string report_html(const Report& r, const std::string& title) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>gpurt report: "
      "{0}</title>\n"
      "<style>{1}</style>\n</head>\n<body>\n<h1>gpurt report: {0}</h1>\n",
      xml_escape(title), kStyle);
  out += fmt::format(
      "<p>Platform {} ({} performance model); times in {}; jobs released over a horizon of {} {}{}.</p>\n",
      xml_escape(r.platform), r.model, to_string(r.time_unit), num(r.horizon, r.time_unit),
      to_string(r.time_unit), r.horizon_capped ? " (shortened to bound the jobs released)" : "");
  out += "<h2>Recommendation</h2>\n<p id=\"recommendation\">" + xml_escape(r.recommendation) + "</p>\n";
  if (r.violations.empty()) {
    out += fmt::format(
        "<p id=\"consistency\" class=\"ok\">Consistency: {} simulated maxima checked against their "
        "bounds, none above.</p>\n",
        r.checked);
  } else {
    out +=
        "<p id=\"consistency\" class=\"bad\">Consistency: simulated maxima above their bounds:</p>\n<ul>\n";
    for (const ReportViolation& v : r.violations) {
      out += fmt::format("<li>{} under {}: simulated {} &gt; bound {} ({})</li>\n", xml_escape(v.task),
                         xml_escape(v.policy), num(v.simulated, r.time_unit), num(v.bound, r.time_unit),
                         xml_escape(v.analysis));
    }
    out += "</ul>\n";
  }
  out += analyses_table(r) + simulated_table(r) + measured_table(r) + timelines(r) + cdfs(r);
  return out + "</body>\n</html>\n";
}

}  // namespace gpurt
