#include "gpurt/trace/chart.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/trace/svg_util.hpp"

namespace gpurt {

namespace {

constexpr double kWidth = 760, kHeight = 460;
constexpr double kLeft = 78, kRight = 200, kBottom = 58;

// A legend entry fits the 158 px beside the plot at about 24 characters: a longer label is cut
// there (at a UTF-8 character boundary) with "…", the whole label in its tooltip.
std::string legend_label(const std::string& label) { return clipped_text(label, 24); }

// `text` in lines of at most `width` characters, broken at spaces, `max_lines` at most (cut:
// the text went on).
struct Wrapped {
  std::vector<std::string> lines;
  bool cut = false;
};
Wrapped wrapped(std::string_view text, std::size_t width, std::size_t max_lines) {
  const auto chars = [](std::string_view s) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); i += std::max<std::size_t>(1, utf8_sequence(s.substr(i)))) ++n;
    return n;
  };
  Wrapped w;
  std::string line;
  std::size_t line_chars = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t space = std::min(text.find(' ', at), text.size());
    const std::string_view word = text.substr(at, space - at);
    at = space + 1;
    if (word.empty()) continue;
    const std::size_t n = chars(word);
    if (!line.empty() && line_chars + 1 + n > width) {
      w.lines.push_back(std::move(line));
      line.clear();
      line_chars = 0;
    }
    line += (line.empty() ? "" : " ") + std::string(word);
    line_chars += (line_chars == 0 ? 0 : 1) + n;
  }
  if (!line.empty()) w.lines.push_back(std::move(line));
  if (w.lines.size() > max_lines) {
    w.lines.resize(max_lines);
    w.cut = true;
  }
  return w;
}

// On a log axis a value must be positive, and at least 10^-300: below, its decade's tick (a power
// of ten past the smallest normal double) would be 0, whose logarithm is no position.
bool drawable(double v, bool log) { return std::isfinite(v) && (!log || v >= 1e-300); }

struct Axis {
  double lo = 0, hi = 1;  ///< domain (in log10 units for a log axis)
  bool log = false;
  std::vector<double> ticks;  ///< tick values in data units
  int digits = 6;             ///< significant digits a tick label needs to differ from its neighbours

  double to_unit(double v) const { return ((log ? std::log10(v) : v) - lo) / (hi - lo); }
};

// A "nice" step (1, 2 or 5 times a power of ten) giving about `target` intervals over `span`.
double nice_step(double span, int target) {
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

Axis make_axis(double min, double max, bool log) {
  Axis a;
  a.log = log;
  if (log) {
    double lo = std::floor(std::log10(min)), hi = std::ceil(std::log10(max));
    if (hi <= lo) hi = lo + 1;
    a.lo = lo;
    a.hi = hi;
    const int every = static_cast<int>(std::ceil((hi - lo) / 8));  // at most ~8 decade labels
    for (double k = lo; k <= hi + 1e-9; k += every) a.ticks.push_back(std::pow(10.0, k));
    return a;
  }
  // Values a chart cannot tell apart (a span below 10^-9 of their size: 0.1 and the next double)
  // are drawn as one level; their tiny span would make a step that t += step cannot advance.
  // So are values whose span is too small a double to divide (subnormal: 5e-324 and 1e-323),
  // which are padded by at least 10^-300.
  if (max - min <= 1e-9 * std::max(std::abs(min), std::abs(max)) || !std::isnormal((max - min) / 5)) {
    const double mid = min / 2 + max / 2;
    const double pad = mid == 0 ? 1 : std::max(std::abs(mid) * 0.1, 1e-300);
    min = mid - pad;
    max = mid + pad;
  }
  const double step = nice_step(max - min, 5);
  a.lo = std::floor(min / step + 1e-9) * step;
  a.hi = std::ceil(max / step - 1e-9) * step;
  // Ticks by index: a count, never an accumulation that rounding could stall.
  const auto n = static_cast<int>(std::lround((a.hi - a.lo) / step));
  for (int i = 0; i <= n && i <= 1000; ++i) {
    const double t = a.lo + i * step;
    a.ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  }
  // Ticks of 1000000 and 1000002 need 7 digits: enough for the step at the largest tick, and
  // never fewer than the usual 6.
  const double largest = std::max(std::abs(a.lo), std::abs(a.hi));
  if (largest > 0) a.digits = std::clamp(static_cast<int>(std::ceil(std::log10(largest / step))) + 1, 6, 17);
  return a;
}

std::string tick_label(double v, const Axis& a) { return fmt::format("{:.{}g}", v, a.digits); }

}  // namespace

std::string chart_svg(const Chart& chart) {
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymin = xmin, ymax = -xmin;
  for (const ChartSeries& s : chart.series) {
    if (s.x.size() != s.y.size())
      throw Error(fmt::format("chart \"{}\": series \"{}\" has {} x values and {} y values", chart.title,
                              s.label, s.x.size(), s.y.size()));
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!drawable(s.x[i], chart.log_x) || !drawable(s.y[i], chart.log_y)) continue;
      xmin = std::min(xmin, s.x[i]);
      xmax = std::max(xmax, s.x[i]);
      ymin = std::min(ymin, s.y[i]);
      ymax = std::max(ymax, s.y[i]);
    }
  }
  if (!(xmin <= xmax)) throw Error(fmt::format("chart \"{}\": no drawable point", chart.title));
  // Finite values a log axis leaves out are said in the note: a point that vanished unsaid
  // looked like a point never measured.
  // A positive value below 10^-300 is left out too, and said apart from those at or below 0
  // (it was counted as one of them).
  std::size_t non_positive = 0, tiny = 0;
  for (const ChartSeries& s : chart.series)
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) ||
          (drawable(s.x[i], chart.log_x) && drawable(s.y[i], chart.log_y)))
        continue;
      const bool at_or_below_0 = (chart.log_x && s.x[i] <= 0) || (chart.log_y && s.y[i] <= 0);
      ++(at_or_below_0 ? non_positive : tiny);
    }
  std::string note_text = chart.note;
  if (non_positive > 0)
    note_text += fmt::format("{}{} point(s) at or below 0 not drawn on the log axis",
                             note_text.empty() ? "" : "; ", non_positive);
  if (tiny > 0)
    note_text += fmt::format("{}{} point(s) in (0, 1e-300) not drawn on the log axis",
                             note_text.empty() ? "" : "; ", tiny);
  const Axis ax = make_axis(xmin, xmax, chart.log_x), ay = make_axis(ymin, ymax, chart.log_y);

  // The note wraps at spaces into lines of at most 108 characters (the picture's width at 12 px),
  // three at most: it says where the numbers come from ("simulated"), which must stay readable.
  const Wrapped note = wrapped(note_text, 108, 3);
  const double top = 44 + 18 * static_cast<double>(note.lines.size());
  // The plot starts right of the widest y tick label (about 6.5 px a character at 11 px, and the
  // rotated axis label's 26 px), at least at kLeft.
  std::size_t widest = 0;
  for (double t : ay.ticks) widest = std::max(widest, tick_label(t, ay).size());
  const double left = std::max(kLeft, 32 + 6.5 * static_cast<double>(widest));
  const double pw = kWidth - left - kRight, ph = kHeight - top - kBottom;
  auto px = [&](double x) { return left + ax.to_unit(x) * pw; };
  auto py = [&](double y) { return top + (1 - ay.to_unit(y)) * ph; };

  // The legend column holds 18 px a series: a chart of many series grows downwards to show all.
  const double height = std::max(kHeight, top + 8 + 18 * static_cast<double>(chart.series.size()) + 8);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      kWidth, height);
  // A title longer than the picture is wide is cut, whole in its tooltip.
  out += fmt::format("<text x=\"{}\" y=\"24\" font-size=\"16\">{}</text>\n", kLeft,
                     clipped_text(chart.title, 84));
  for (std::size_t k = 0; k < note.lines.size(); ++k) {
    // A note past its lines ends cut, the whole note in the last line's tooltip; a word longer
    // than a line is cut likewise.
    const std::string text =
        k + 1 == note.lines.size() && note.cut
            ? "<tspan>" + xml_escape(note.lines[k]) + "…<title>" + xml_escape(note_text) + "</title></tspan>"
            : clipped_text(note.lines[k], 108);
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#b00\">{}</text>\n", kLeft,
                       44 + 18 * k, text);
  }

  // Grid, ticks and labels.
  for (double t : ax.ticks) {
    const double x = px(t);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e4e4e4\"/>\n"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" font-size=\"11\" text-anchor=\"middle\">{4}</text>\n",
        x, top, top + ph, top + ph + 16, tick_label(t, ax));
  }
  for (double t : ay.ticks) {
    const double y = py(t);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#e4e4e4\"/>\n"
        "<text x=\"{3:.1f}\" y=\"{4:.1f}\" font-size=\"11\" text-anchor=\"end\">{5}</text>\n",
        left, y, left + pw, left - 6, y + 4, tick_label(t, ay));
  }
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n",
                     left, top, pw, ph);
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"13\" text-anchor=\"middle\">{}</text>\n",
                     left + pw / 2, kHeight - 16, xml_escape(chart.x_label));
  out += fmt::format(
      "<text transform=\"translate(18 {:.1f}) rotate(-90)\" font-size=\"13\" "
      "text-anchor=\"middle\">{}</text>\n",
      top + ph / 2, xml_escape(chart.y_label));

  // Lines (broken at undrawable points), markers and the legend.
  constexpr const char* kDash[] = {"", "6 3", "2 3", "8 3 2 3", "1 4"};
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const ChartSeries& s = chart.series[k];
    const char* colour = kPalette[k % std::size(kPalette)];
    const std::string dash = kDash[(k / std::size(kPalette)) % std::size(kDash)];
    const std::string dash_attr = dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", dash);
    std::string points;
    auto flush = [&] {
      if (chart.lines && points.find(' ') != std::string::npos)
        out += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"{} points=\"{}\"/>\n",
                           colour, dash_attr, points);
      points.clear();
    };
    std::string markers;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!drawable(s.x[i], chart.log_x) || !drawable(s.y[i], chart.log_y)) {
        flush();
        continue;
      }
      const double x = px(s.x[i]), y = py(s.y[i]);
      if (!points.empty()) points += ' ';
      points += fmt::format("{:.1f},{:.1f}", x, y);
      if (s.x.size() <= 60 || !chart.lines)
        markers += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.8\" fill=\"{}\"><title>{}: ({:g}, "
            "{:g})</title></circle>\n",
            x, y, colour, xml_escape(s.label), s.x[i], s.y[i]);
    }
    flush();
    out += markers;
    const double ly = top + 8 + 18 * static_cast<double>(k);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
        "stroke-width=\"2\"{4}/>\n"
        "<text x=\"{5:.1f}\" y=\"{6:.1f}\" font-size=\"12\">{7}</text>\n",
        left + pw + 12, ly, left + pw + 36, colour, dash_attr, left + pw + 42, ly + 4, legend_label(s.label));
  }
  out += "</svg>\n";
  return out;
}

ChartSeries cdf_series(std::string label, std::vector<double> samples) {
  std::erase_if(samples, [](double v) { return std::isnan(v); });
  std::sort(samples.begin(), samples.end());
  ChartSeries s{std::move(label), {}, {}};
  if (samples.empty()) return s;
  const double n = static_cast<double>(samples.size());
  s.x.push_back(samples.front());
  s.y.push_back(0);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    // Vertical step at each sample: from the previous fraction up to (i+1)/n.
    if (i > 0) {
      s.x.push_back(samples[i]);
      s.y.push_back(static_cast<double>(i) / n);
    }
    s.x.push_back(samples[i]);
    s.y.push_back(static_cast<double>(i + 1) / n);
  }
  return s;
}

std::size_t CsvTable::column(const std::string& name, const std::string& file) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  if (it == columns.end()) {
    std::string known;
    for (const std::string& c : columns) known += (known.empty() ? "" : ", ") + c;
    throw InputError(file, "header", name, fmt::format("no such column (columns: {})", known));
  }
  return static_cast<std::size_t>(it - columns.begin());
}

CsvTable parse_csv(std::string_view text, const std::string& file, std::size_t max_rows,
                   std::string_view limit) {
  // A UTF-8 byte order mark (what some spreadsheets write first) is not part of the first column.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<std::vector<std::string>> lines;
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false, any = false;
  std::size_t line_no = 1, quote_line = 0;
  auto end_field = [&] {
    fields.push_back(std::move(field));
    field.clear();
  };
  auto end_line = [&] {
    end_field();
    if (!(fields.size() == 1 && fields[0].empty() && !any)) lines.push_back(std::move(fields));
    fields.clear();
    if (!lines.empty() && lines.size() - 1 > max_rows)  // the header and max_rows rows
      throw InputError(file, fmt::format("has more than {} rows (at line {}): {}", max_rows, line_no, limit));
    any = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line_no;
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
      any = true;
      quote_line = line_no;
    } else if (c == ',') {
      end_field();
      any = true;
    } else if (c == '\n') {
      end_line();
      ++line_no;
    } else if (c != '\r') {
      field += c;
      any = true;
    }
  }
  if (quoted) throw InputError(file, fmt::format("line {}: unterminated quoted field", quote_line));
  if (any || !field.empty()) end_line();
  if (lines.empty()) throw InputError(file, "empty CSV (no header line)");
  CsvTable t;
  t.columns = std::move(lines.front());
  for (std::size_t r = 1; r < lines.size(); ++r) {
    if (lines[r].size() != t.columns.size())
      throw InputError(file, fmt::format("row {}", r), fmt::format("{} fields", lines[r].size()),
                       fmt::format("the header has {} columns", t.columns.size()));
    t.rows.push_back(std::move(lines[r]));
  }
  return t;
}

std::vector<ChartSeries> series_from_csv(const CsvTable& table, const std::string& file, const std::string& x,
                                         const std::vector<std::string>& ys, const std::string& group) {
  if (ys.empty()) throw InputError(file, "no y column given");
  const std::size_t xi = table.column(x, file);
  std::vector<std::size_t> yi;
  for (const std::string& y : ys) yi.push_back(table.column(y, file));
  const bool grouped = !group.empty();
  const std::size_t gi = grouped ? table.column(group, file) : 0;

  auto number = [&](std::size_t row, std::size_t col) {
    const std::string& v = table.rows[row][col];
    if (v.empty() || v == "nan" || v == "NaN") return std::numeric_limits<double>::quiet_NaN();
    // strtod, not stod: a denormal (5e-324) is a number; stod throws on its underflow.
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    // strtod also reads hexadecimal ("0x10") and "inf": a CSV number is decimal.
    if (end != v.c_str() + v.size() || std::isspace(static_cast<unsigned char>(v.front())) ||
        v.find_first_of("xXpP") != std::string::npos)
      throw InputError(file, fmt::format("row {}.{}", row + 1, table.columns[col]), v, "not a number");
    if (std::isnan(d)) return d;  // NAN, -nan: spellings of nan, as the other spreadsheets write it
    // Beyond 10^300 the span of two values may pass the largest double (1e308 - -1e308).
    if (!(std::abs(d) <= 1e300))
      throw InputError(file, fmt::format("row {}.{}", row + 1, table.columns[col]), v,
                       "is beyond what a chart draws (|value| <= 1e300)");
    return d;
  };

  std::vector<std::string> order;
  std::map<std::string, std::vector<std::size_t>> rows_of;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const std::string key = grouped ? table.rows[r][gi] : "";
    if (!rows_of.contains(key)) order.push_back(key);
    rows_of[key].push_back(r);
  }
  std::vector<ChartSeries> out;
  for (const std::string& key : order) {
    std::vector<std::size_t> rows = rows_of[key];
    // Ascending x; rows whose x is empty or nan last (they are not drawn). A comparison with
    // nan is no ordering: sorting on it scrambled the lines.
    std::stable_sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
      const double xa = number(a, xi), xb = number(b, xi);
      if (std::isnan(xa)) return false;
      return std::isnan(xb) || xa < xb;
    });
    for (std::size_t k = 0; k < yi.size(); ++k) {
      ChartSeries s;
      s.label = !grouped ? ys[k] : ys.size() == 1 ? key : key + ": " + ys[k];
      for (std::size_t r : rows) {
        s.x.push_back(number(r, xi));
        s.y.push_back(number(r, yi[k]));
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace gpurt
