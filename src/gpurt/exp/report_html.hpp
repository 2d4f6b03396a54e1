// The HTML form of a report (`gpurt report --html FILE`): one self-contained page, no network and
// no scripts: inline CSS, the analyses and simulations as tables, per-policy job timelines and
// per-task response-time CDFs with the bounds marked, all as inline SVG (trace/chart.hpp draws the
// CDFs). docs/report.md "HTML".
#pragma once

#include <string>

#include "gpurt/exp/report.hpp"

namespace gpurt {

/// The page. `title` names the system (e.g. its file). Best with a report made with
/// ReportOptions::record_jobs (without it there are no timelines or CDFs, and the page says so).
std::string report_html(const Report& report, const std::string& title);

}  // namespace gpurt
