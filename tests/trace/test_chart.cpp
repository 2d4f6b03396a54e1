// Charts: axis ticks, point placement, CDFs, CSV reading and its errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "gpurt/core/error.hpp"
#include "gpurt/trace/chart.hpp"
#include "gpurt/trace/svg_util.hpp"

namespace gpurt {
namespace {

// The points of every polyline, in document order.
std::vector<std::vector<std::pair<double, double>>> polylines(const std::string& svg) {
  std::vector<std::vector<std::pair<double, double>>> out;
  const std::regex line("points=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), line); it != std::sregex_iterator(); ++it) {
    std::vector<std::pair<double, double>> pts;
    const std::string s = (*it)[1];
    const std::regex pt("([-0-9.]+),([-0-9.]+)");
    for (auto p = std::sregex_iterator(s.begin(), s.end(), pt); p != std::sregex_iterator(); ++p)
      pts.emplace_back(std::stod((*p)[1]), std::stod((*p)[2]));
    out.push_back(pts);
  }
  return out;
}

// The tick labels under the x axis (text-anchor middle) and left of the y axis (anchor end).
std::vector<std::string> labels(const std::string& svg, const std::string& anchor) {
  std::vector<std::string> out;
  const std::regex t("font-size=\"11\" text-anchor=\"" + anchor + "\">([^<]*)<");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), t); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

// Control characters that XML 1.0 forbids become U+FFFD (a title with one made the whole SVG
// unreadable); tab and newline stay, the markup characters become entities.
TEST(Chart, XmlEscapeKeepsTheSvgWellFormed) {
  EXPECT_EQ(gpurt::xml_escape("a\x01"
                              "b\tc\n<&\">"),
            "a\xEF\xBF\xBD"
            "b\tc\n&lt;&amp;&quot;&gt;");
}

// Bytes that are not UTF-8 (a Latin-1 CSV header, a title in another encoding) made an SVG that
// no XML reader opens: each becomes U+FFFD, and valid sequences of 2 to 4 bytes stay.
TEST(Chart, XmlEscapeReplacesBytesThatAreNotUtf8) {
  EXPECT_EQ(gpurt::xml_escape("y\xe9"), "y\xEF\xBF\xBD");                  // Latin-1 é
  EXPECT_EQ(gpurt::xml_escape("\xff \xc3\xa9"), "\xEF\xBF\xBD \xC3\xA9");  // 0xff; UTF-8 é
  EXPECT_EQ(gpurt::xml_escape("\xe2\x9c\x93\xf0\x9f\x98\x80"), "\xE2\x9C\x93\xF0\x9F\x98\x80");  // ✓ 😀
  EXPECT_EQ(gpurt::xml_escape("\xc0\xaf"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(gpurt::xml_escape("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(gpurt::xml_escape("a\xe2\x9c"), "a\xEF\xBF\xBD\xEF\xBF\xBD");                // cut short
}

TEST(Chart, LinearTicksAreNiceAndCoverTheData) {
  Chart c{"t", "u", "ratio", false, false, "", {{"a", {0.1, 0.7, 2.0}, {0.0, 0.5, 1.0}}}};
  const std::string svg = chart_svg(c);
  EXPECT_EQ(labels(svg, "middle"), (std::vector<std::string>{"0", "0.5", "1", "1.5", "2"}));
  EXPECT_EQ(labels(svg, "end"), (std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"}));
}

TEST(Chart, PointsMapLinearlyIntoThePlotArea) {
  // x domain [0, 2] over the plot width 760 - 78 - 200 = 482 px from x = 78; y domain [0, 1]
  // over 460 - 44 - 58 = 358 px from y = 44 (no note), upwards.
  Chart c{"t", "", "", false, false, "", {{"a", {0, 1, 2}, {0, 0.5, 1}}}};
  const auto lines = polylines(chart_svg(c));
  ASSERT_EQ(lines.size(), 1u);
  ASSERT_EQ(lines[0].size(), 3u);
  EXPECT_NEAR(lines[0][0].first, 78, 0.06);
  EXPECT_NEAR(lines[0][0].second, 44 + 358, 0.06);
  EXPECT_NEAR(lines[0][1].first, 78 + 241, 0.06);
  EXPECT_NEAR(lines[0][1].second, 44 + 179, 0.06);
  EXPECT_NEAR(lines[0][2].first, 78 + 482, 0.06);
  EXPECT_NEAR(lines[0][2].second, 44, 0.06);
}

TEST(Chart, LogAxisUsesWholeDecadesAndDropsNonPositiveValues) {
  Chart c{"t", "", "", false, true, "", {{"a", {1, 2, 3, 4}, {0.02, 3, 0, 900}}}};
  const std::string svg = chart_svg(c);
  EXPECT_EQ(labels(svg, "end"), (std::vector<std::string>{"0.01", "0.1", "1", "10", "100", "1000"}));
  // y = 0 cannot be drawn on a log axis: the line breaks there, into (1, 0.02)-(2, 3) and the
  // lone point (4, 900), which is a marker but no polyline.
  const auto lines = polylines(svg);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].size(), 2u);
  // y = 3 sits (log10(3) + 2) / 5 of the way up the domain [10^-2, 10^3]; the note line that
  // counts the left-out 0 moves the plot down (top 62, height 460 - 62 - 58 = 340).
  EXPECT_NEAR(lines[0][1].second, 62 + (1 - (std::log10(3.0) + 2) / 5) * 340, 0.06);
}

// A log axis cannot draw 0: the points it leaves out are counted in the note line, which
// appears for them (they vanished unsaid). Markers only: every point, no polyline.
TEST(Chart, LeftOutLogPointsAreCountedAndMarkersOnlyDrawNoLine) {
  Chart c{"t", "", "", false, true, "", {{"a", {1, 2, 3, 4}, {0.02, 3, 0, 900}}, {"b", {1, 2}, {-1, 5}}}};
  const std::string svg = chart_svg(c);
  EXPECT_NE(svg.find(">2 point(s) at or below 0 not drawn on the log axis</text>"), std::string::npos) << svg;
  c.note = "simulated";
  EXPECT_NE(chart_svg(c).find(">simulated; 2 point(s) at or below 0 not drawn on the log axis</text>"),
            std::string::npos);
  Chart m{"t", "", "", false, false, "", {{"a", {0, 1, 2}, {1, 3, 2}}}};
  m.lines = false;
  const std::string dots = chart_svg(m);
  EXPECT_TRUE(polylines(dots).empty());
  std::size_t circles = 0;
  for (std::size_t at = dots.find("<circle"); at != std::string::npos; at = dots.find("<circle", at + 1))
    ++circles;
  EXPECT_EQ(circles, 3u);
}

TEST(Chart, NanBreaksTheLine) {
  Chart c{"t", "", "", false, false, "", {{"a", {1, 2, 3, 4, 5}, {1, 2, NAN, 4, 5}}}};
  const auto lines = polylines(chart_svg(c));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].size(), 2u);
  EXPECT_EQ(lines[1].size(), 2u);
}

TEST(Chart, RejectsEmptyAndRaggedSeries) {
  EXPECT_THROW(chart_svg(Chart{"t", "", "", false, false, "", {{"a", {1, 2}, {NAN, NAN}}}}), Error);
  EXPECT_THROW(chart_svg(Chart{"t", "", "", false, false, "", {{"a", {1, 2}, {1}}}}), Error);
}

TEST(Chart, EscapesTextAndShowsTheNote) {
  Chart c{"a<b & \"c\"", "", "", false, false, "simulated", {{"x>y", {1, 2}, {1, 2}}}};
  const std::string svg = chart_svg(c);
  EXPECT_NE(svg.find("a&lt;b &amp; &quot;c&quot;"), std::string::npos);
  EXPECT_NE(svg.find("x&gt;y"), std::string::npos);
  EXPECT_NE(svg.find(">simulated</text>"), std::string::npos);
}

// Every series gets its legend entry: the canvas grows for many (the 23rd on fell below the
// picture), and a label too long for the column is cut with "…", whole in its tooltip.
TEST(Chart, TheLegendShowsEverySeriesAndCutsLongLabels) {
  Chart c;
  c.title = "many";
  for (int k = 0; k < 60; ++k) c.series.push_back(ChartSeries{fmt::format("s{}", k), {0, 1}, {0, 1}});
  c.series[0].label = "predicted: Released second instance, long";
  const std::string svg = chart_svg(c);
  EXPECT_NE(svg.find("height=\"1140\""), std::string::npos) << svg.substr(0, 200);  // 44 + 8 + 18·60 + 8
  EXPECT_NE(svg.find(">s59</text>"), std::string::npos);
  EXPECT_NE(
      svg.find("<tspan>predicted: Released sec…<title>predicted: Released second instance, long</title>"),
      std::string::npos);
}

TEST(Chart, CdfIsAStepFunctionOfTheSortedSamples) {
  const ChartSeries s = cdf_series("r", {3, 1, 2, NAN, 2});
  // Sorted 1, 2, 2, 3 (n = 4): (1,0) (1,.25) (2,.25) (2,.5) (2,.5) (2,.75) (3,.75) (3,1).
  EXPECT_EQ(s.x, (std::vector<double>{1, 1, 2, 2, 2, 2, 3, 3}));
  EXPECT_EQ(s.y, (std::vector<double>{0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 1}));
  EXPECT_TRUE(cdf_series("e", {}).x.empty());
}

TEST(Csv, ParsesQuotesAndSkipsBlankLines) {
  const CsvTable t = parse_csv("a,\"b,c\",d\r\n1,\"x \"\"q\"\"\",3\n\n4,,6", "f.csv");
  EXPECT_EQ(t.columns, (std::vector<std::string>{"a", "b,c", "d"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][1], "x \"q\"");
  EXPECT_EQ(t.rows[1][1], "");
}

TEST(Csv, AByteOrderMarkIsNotPartOfTheFirstColumn) {
  const CsvTable t = parse_csv("\xEF\xBB\xBFx,y\n1,2\n", "bom.csv");
  EXPECT_EQ(t.columns.at(0), "x");
  EXPECT_EQ(t.column("x", "bom.csv"), 0u);
}

TEST(Csv, ErrorsNameTheFileRowAndValue) {
  try {
    parse_csv("a,b\n1,2\n3\n", "f.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.csv: row 2 = 1 fields: the header has 2 columns");
  }
  EXPECT_THROW(parse_csv("a,\"b\n", "f.csv"), InputError);
  EXPECT_THROW(parse_csv("", "f.csv"), InputError);
  const CsvTable t = parse_csv("u,r\n0.5,1\n0.6,x\n", "f.csv");
  try {
    series_from_csv(t, "f.csv", "u", {"r"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.csv: row 2.r = x: not a number");
  }
  EXPECT_THROW(series_from_csv(t, "f.csv", "u", {"missing"}), InputError);
  // A CSV number is decimal: strtod would read "0x10" as 16 and plot it.
  const CsvTable hex = parse_csv("u,r\n0x10,1\n", "h.csv");
  try {
    series_from_csv(hex, "h.csv", "u", {"r"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "h.csv: row 1.u = 0x10: not a number");
  }
}

TEST(Csv, GroupsSplitRowsIntoSortedSeries) {
  const CsvTable t =
      parse_csv("u,policy,ratio,time\n0.4,edf,1,5\n0.2,edf,1,3\n0.2,pbs,1,9\n0.4,pbs,0.5,\n", "f");
  const auto one = series_from_csv(t, "f", "u", {"ratio"}, "policy");
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0].label, "edf");
  EXPECT_EQ(one[0].x, (std::vector<double>{0.2, 0.4}));
  EXPECT_EQ(one[1].y, (std::vector<double>{1, 0.5}));
  const auto two = series_from_csv(t, "f", "u", {"ratio", "time"}, "policy");
  ASSERT_EQ(two.size(), 4u);
  EXPECT_EQ(two[1].label, "edf: time");
  EXPECT_EQ(two[1].y, (std::vector<double>{3, 5}));
  EXPECT_TRUE(std::isnan(two[3].y[1]));  // an empty cell is a gap
}

// Values a chart cannot tell apart draw as one level (their tiny span made a tick step that
// t += step never advanced: the tick list grew until memory ran out), and the axis still has
// ticks around them; values whose span passes the largest double are refused (they drew NaN).
TEST(Chart, NearlyEqualValuesGetAnAxisAndHugeOnesAreRefused) {
  for (const char* text : {"x,y\n1,0.1\n2,0.10000000000000002\n", "x,y\n1,1\n1.0000000000000002,2\n",
                           "x,y\n1,1e15\n2,1000000000000000.125\n"}) {
    const CsvTable t = parse_csv(text, "f.csv");
    Chart c;
    c.series = series_from_csv(t, "f.csv", "x", {"y"});
    const std::string svg = chart_svg(c);
    EXPECT_EQ(svg.find("nan"), std::string::npos) << text;
    EXPECT_GE(labels(svg, "end").size(), 2u) << text;
    EXPECT_LE(labels(svg, "end").size(), 12u) << text;
  }
  const CsvTable huge = parse_csv("x,y\n1,1e308\n2,-1e308\n", "f.csv");
  try {
    series_from_csv(huge, "f.csv", "x", {"y"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.csv: row 1.y = 1e308: is beyond what a chart draws (|value| <= 1e300)");
  }
}

// Values close together but large need more than {:g}'s 6 digits: the ticks of 1000000 ..
// 1000010 read "1e+06" three times. Each label now differs from its neighbours, and the plot
// starts right of the widest one (at 78 px as before for short labels).
TEST(Chart, TickLabelsOfLargeCloseValuesDifferAndFit) {
  Chart c{"t", "", "", false, false, "", {{"a", {1, 2, 3}, {1000000, 1000010, 1000004}}}};
  const std::string svg = chart_svg(c);
  EXPECT_EQ(labels(svg, "end"),
            (std::vector<std::string>{"1000000", "1000002", "1000004", "1000006", "1000008", "1000010"}));
  const auto lines = polylines(svg);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NEAR(lines[0][0].first, 78, 0.06);  // 7 characters fit in the usual margin
  Chart wide{"t", "", "", false, false, "", {{"a", {1, 2}, {123456789.5, 123456790}}}};
  const std::string w = chart_svg(wide);
  const auto ticks = labels(w, "end");
  ASSERT_GE(ticks.size(), 2u);
  EXPECT_EQ(ticks.front(), "123456789.5");
  EXPECT_NE(ticks[0], ticks[1]);
  EXPECT_NEAR(polylines(w)[0][0].first, 32 + 6.5 * 11, 0.06);  // 11 characters: a wider margin
}

// Subnormal values (5e-324) gave a step of 0 and "-nan" coordinates on a linear axis, and a tick
// of 10^-324 = 0 (position -inf) on a log axis. The linear axis pads them to 10^-300; on a log
// axis a value below 10^-300 is not drawn, as 0 is not.
TEST(Chart, SubnormalValuesDrawNoNanOrInfinity) {
  for (const bool log : {false, true}) {
    Chart c{"t", "", "", false, log, "", {{"a", {1, 2, 3}, {5e-324, 1e-323, log ? 1.0 : 1e-323}}}};
    Chart x{"t", "", "", false, false, "", {{"a", {5e-324, 1e-323}, {1, 2}}}};
    for (const std::string& svg : {chart_svg(c), chart_svg(x)}) {
      EXPECT_EQ(svg.find("nan"), std::string::npos) << svg;
      EXPECT_EQ(svg.find("inf"), std::string::npos) << svg;
    }
  }
  // The log axis says why they are missing: not "at or below 0", which they are not.
  Chart t{"t", "", "", false, true, "", {{"a", {1, 2, 3, 4}, {1e-310, 0, 1, 2}}}};
  const std::string svg = chart_svg(t);
  EXPECT_NE(svg.find(">1 point(s) at or below 0 not drawn on the log axis; 1 point(s) in (0, 1e-300) "
                     "not drawn on the log axis</text>"),
            std::string::npos)
      << svg;
}

// A title longer than the picture is wide ran off its edge: cut with "…" at 84 characters, whole
// in the tooltip. A note (where the numbers come from) wraps at spaces into lines of at most 108
// characters, three at most, the plot moving down; past three the last line ends cut, the whole
// note in its tooltip.
TEST(Chart, LongTitlesAreCutAndLongNotesWrap) {
  const std::string title(100, 't');
  std::string note;
  for (int k = 0; k < 40; ++k) note += (k ? " " : "") + std::string("word");  // 199 characters
  Chart c{title, "", "", false, false, note, {{"a", {1, 2}, {1, 2}}}};
  const std::string svg = chart_svg(c);
  EXPECT_NE(svg.find("<tspan>" + std::string(83, 't') + "…<title>" + title + "</title></tspan>"),
            std::string::npos);
  std::string first, second;
  for (int k = 0; k < 21; ++k) first += (k ? " " : "") + std::string("word");  // 104 characters
  for (int k = 0; k < 19; ++k) second += (k ? " " : "") + std::string("word");
  EXPECT_NE(svg.find("y=\"44\" font-size=\"12\" fill=\"#b00\">" + first + "</text>"), std::string::npos)
      << svg;
  EXPECT_NE(svg.find("y=\"62\" font-size=\"12\" fill=\"#b00\">" + second + "</text>"), std::string::npos);
  EXPECT_NE(svg.find("y1=\"80.0\""), std::string::npos);  // the plot starts under two note lines
  std::string lots;
  for (int k = 0; k < 100; ++k) lots += (k ? " " : "") + std::string("word");
  c.note = lots;
  const std::string cut = chart_svg(c);
  EXPECT_NE(
      cut.find("y=\"80\" font-size=\"12\" fill=\"#b00\"><tspan>" + first + "…<title>" + lots + "</title>"),
      std::string::npos)
      << cut;
  Chart fits{std::string(84, 't'), "", "", false, false, "", {{"a", {1, 2}, {1, 2}}}};
  EXPECT_NE(chart_svg(fits).find(">" + std::string(84, 't') + "</text>"), std::string::npos);
}

// Rows sort by x with an empty or nan x last (left out): a nan in the comparison is no ordering,
// and the lines came out scrambled. A denormal is a number (stod threw on its underflow).
TEST(Csv, RowsWithoutAnXSortLastAndDenormalsAreNumbers) {
  const CsvTable t = parse_csv("x,y\n5,5\n1,1\nnan,0\n4,4\n2,2\n,0\n3,3\n", "f.csv");
  const auto s = series_from_csv(t, "f.csv", "x", {"y"});
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(s[0].x.size(), 7u);
  EXPECT_EQ(std::vector<double>(s[0].x.begin(), s[0].x.begin() + 5), (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(std::isnan(s[0].x[5]));
  EXPECT_TRUE(std::isnan(s[0].x[6]));
  const auto d = series_from_csv(parse_csv("x,y\n1,5e-324\n2,1e-320\n", "f.csv"), "f.csv", "x", {"y"});
  EXPECT_EQ(d[0].y[0], 5e-324);
}

// NAN and -nan are nan as "nan" is, a gap (they were refused as "beyond what a chart draws");
// inf stays refused.
TEST(Csv, EverySpellingOfNanIsAGap) {
  const auto s = series_from_csv(parse_csv("x,y\n1,NAN\n2,-nan\n3,Nan\n4,1\n", "f.csv"), "f.csv", "x", {"y"});
  ASSERT_EQ(s[0].y.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(s[0].y[static_cast<std::size_t>(i)])) << i;
  EXPECT_THROW(series_from_csv(parse_csv("x,y\n1,inf\n", "f.csv"), "f.csv", "x", {"y"}), InputError);
}

}  // namespace
}  // namespace gpurt
