// Writers and readers of the trace: examiner JSON round trip, SVG and Perfetto content.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "gpurt/bench/plots.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/sim/simulate.hpp"
#include "gpurt/trace/examiner_json.hpp"
#include "gpurt/trace/render.hpp"

using namespace gpurt;

namespace {
SimResult cut_ahead() {
  const Platform& p = *find_platform_preset("jetson-tx2");
  return simulate(load_scenario(GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json", p), p);
}
}  // namespace

TEST(Trace, ExaminerJsonHasTheExaminerSchemaAndReadsBack) {
  const SimResult r = cut_ahead();
  const Json doc = examiner_result(r.trace, r.trace.instances[1]);
  EXPECT_EQ(doc["scenario_name"], "Cutting ahead test");
  EXPECT_EQ(doc["label"], "Released second");
  EXPECT_DOUBLE_EQ(doc["release_time"].get<double>(), 0.25);
  ASSERT_EQ(doc["times"].size(), 3u);  // blank, CPU times, one kernel
  EXPECT_TRUE(doc["times"][0].empty());
  const Json& k = doc["times"][2];
  EXPECT_EQ(k["block_times"], Json({1.0, 1.5, 1.0, 1.5}));
  EXPECT_EQ(k["block_smids"], Json({1, 0}));
  EXPECT_EQ(k["cuda_launch_times"], Json({0.25, 0.25, 1.5}));
  EXPECT_EQ(k["thread_count"], 1024);

  const auto dir = std::filesystem::temp_directory_path() / ("gpurt-trace-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<std::string> files;
  for (const auto& inst : r.trace.instances) {
    files.push_back((dir / inst.log_name).string());
    write_file_atomically(files.back(), examiner_result(r.trace, inst).dump());
  }
  const Trace back = load_examiner_results(files);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(back.simulated);
  EXPECT_EQ(back.sms, 2);
  ASSERT_EQ(back.instances.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& a = r.trace.instances[i].iterations[0].kernels[0];
    const auto& b = back.instances[i].iterations[0].kernels[0];
    ASSERT_EQ(a.blocks.size(), b.blocks.size());
    for (std::size_t j = 0; j < a.blocks.size(); ++j) {
      EXPECT_EQ(a.blocks[j].start, b.blocks[j].start);
      EXPECT_EQ(a.blocks[j].end, b.blocks[j].end);
      EXPECT_EQ(a.blocks[j].sm, b.blocks[j].sm);
    }
  }
}

// Result files are written as text without a JSON tree of every block (issue 16: memory follows
// the output, not a tree ~10x its size); the bytes must be exactly dump(2)'s.
TEST(Trace, ExaminerResultTextIsExactlyTheDocumentsDump) {
  const SimResult r = cut_ahead();
  for (const auto& inst : r.trace.instances) {
    EXPECT_EQ(examiner_result_text(r.trace, inst), examiner_result(r.trace, inst).dump(2)) << inst.label;
  }
  // Several kernels, one of them without block times, odd times and SM ids.
  Trace t = r.trace;
  InstanceTrace& inst = t.instances[0];
  KernelRecord extra = inst.iterations[0].kernels[0];
  extra.name = "second";
  extra.blocks = {{Nanos{1}, Nanos{123456789012}, 7}, {Nanos{0}, Nanos{999999999}, 0}};
  KernelRecord empty = extra;
  empty.blocks.clear();
  inst.iterations[0].kernels.push_back(extra);
  inst.iterations[0].kernels.push_back(empty);
  inst.iterations.push_back(inst.iterations[0]);
  const std::string text = examiner_result_text(t, inst);
  EXPECT_EQ(text, examiner_result(t, inst).dump(2));
  EXPECT_NE(text.find("123.456789012"), std::string::npos);
  // A label holding the placeholder's own text cannot confuse the splice.
  inst.label = std::string("\x01") + "bt0";
  EXPECT_EQ(examiner_result_text(t, inst), examiner_result(t, inst).dump(2));
}

TEST(Trace, PerfettoTextIsExactlyTheDocumentsDump) {
  const SimResult r = cut_ahead();
  EXPECT_EQ(perfetto_trace_text(r.trace), perfetto_trace(r.trace).dump());
  EXPECT_EQ(drawn_blocks(r.trace), 10u);
  EXPECT_NO_THROW(check_drawable(r.trace, 10));
  EXPECT_THROW(check_drawable(r.trace, 9), gpurt::Error);
}

TEST(Trace, SvgDrawsEveryBlockWithItsLabelAndAReleaseArrowPerKernel) {
  const SimResult r = cut_ahead();
  const std::string svg = render_svg_timeline(r.trace);
  const auto count = [&](const std::string& needle) {
    int n = 0;
    for (auto pos = svg.find(needle); pos != std::string::npos; pos = svg.find(needle, pos + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("<title>"), 10);  // 7 + 2 + 1 blocks
  EXPECT_EQ(count("<path "), 3);    // one release arrow per kernel
  EXPECT_NE(svg.find(">Released second:0<"), std::string::npos);
  EXPECT_NE(svg.find("simulated by gpurt on jetson-tx2"), std::string::npos);
  EXPECT_NE(svg.find(">SM 1<"), std::string::npos);
}

namespace {
// One kernel of blocks [start, end) on SM 0, launched at the first start.
Trace one_kernel(std::vector<std::pair<std::int64_t, std::int64_t>> blocks) {
  Trace t;
  t.sms = 1;
  t.max_threads_per_sm = 2048;
  KernelRecord k;
  k.name = "k";
  k.thread_count = 256;
  k.launch_before = Nanos{blocks.front().first};
  for (const auto& [a, b] : blocks) k.blocks.push_back(BlockRecord{Nanos{a}, Nanos{b}, 0});
  IterationRecord it;
  it.kernels.push_back(k);
  InstanceTrace inst;
  inst.iterations.push_back(it);
  t.instances.push_back(inst);
  return t;
}
std::vector<std::string> tick_labels(const std::string& svg) {
  std::vector<std::string> out;
  const std::string mark = R"(text-anchor="middle">)";
  for (auto p = svg.find(mark); p != std::string::npos; p = svg.find(mark, p + 1))
    out.push_back(svg.substr(p + mark.size(), svg.find('<', p) - p - mark.size()));
  return out;
}
}  // namespace

// Measured files may hold absolute clock times: ticks count from the first event (labelled so),
// not from 0, where a sub-microsecond step at 1.7e9 s never advanced (the picture grew without
// end) and longer spans printed "1.7e+09" under every tick.
TEST(Trace, AbsoluteClockTimesGetDistinctTicksFromTheFirstEvent) {
  const std::int64_t at = 1'700'000'000'000'000'000;  // ns
  const std::string ms = render_svg_timeline(one_kernel({{at + 1'000'000, at + 2'000'000}}));
  EXPECT_NE(ms.find("time (s) after 1700000000.001000000 s on the clock"), std::string::npos);
  const std::vector<std::string> ticks = tick_labels(ms);
  ASSERT_GE(ticks.size(), 5u);
  EXPECT_EQ(ticks.front(), "0");
  EXPECT_EQ(std::set<std::string>(ticks.begin(), ticks.end()).size(), ticks.size());
  const std::string ns = render_svg_timeline(one_kernel({{at, at + 600}}));  // returned at all
  EXPECT_GE(tick_labels(ns).size(), 5u);
  EXPECT_NE(ns.find("[1700000000.000000000 s, 1700000000.000000600 s]"), std::string::npos);
  // Times from 0 keep the plain axis, and a tick under 1 ns sits where its value says.
  const std::string tiny = render_svg_timeline(one_kernel({{0, 4}}));
  EXPECT_NE(tiny.find(">time (s)<"), std::string::npos);
  EXPECT_NE(tiny.find(R"(<text x="347.5" y="236.0" font-size="11" text-anchor="middle">1e-09</text>)"),
            std::string::npos)
      << tiny;
}

// Side by side, both pictures share a time scale: the longer span (each panel had its own, so a
// run twice as long looked the same).
TEST(Trace, SideBySidePicturesShareOneTimeScale) {
  const std::string svg = side_by_side_svg(one_kernel({{0, 1'000'000}}), one_kernel({{0, 2'000'000}}));
  const std::vector<std::string> ticks = tick_labels(svg);
  ASSERT_FALSE(ticks.empty());
  EXPECT_EQ(std::count(ticks.begin(), ticks.end(), "0.002"), 2) << svg;
  EXPECT_NE(svg.find("predicted (measured): "), std::string::npos);  // the files' own word
}

// Blocks resident together on an SM overlap without nesting, which one Perfetto track cannot
// show (the UI drops or truncates such events): each SM gets a track per block it runs at once,
// and no two events of a track overlap.
TEST(Trace, PerfettoGivesEachSmATrackPerConcurrentBlockAndOneEventPerBlock) {
  const SimResult r = cut_ahead();
  const Json t = perfetto_trace(r.trace);
  std::map<std::int64_t, std::string> tracks;                           // tid -> name
  std::map<std::int64_t, std::vector<std::pair<double, double>>> busy;  // tid -> [ts, ts + dur)
  int blocks = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["pid"] != 1) continue;
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks[e["tid"]] = e["args"]["name"];
    if (e["ph"] != "X") continue;
    ++blocks;
    busy[e["tid"]].emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
    // The track is one of its SM's: named "SM n" or "SM n (k)".
    const std::string sm = "SM " + std::to_string(e["args"]["sm"].get<int>());
    ASSERT_TRUE(tracks.count(e["tid"])) << e.dump();
    EXPECT_TRUE(tracks[e["tid"]] == sm || tracks[e["tid"]].rfind(sm + " (", 0) == 0) << tracks[e["tid"]];
  }
  EXPECT_EQ(blocks, 10);
  for (auto& [tid, spans] : busy) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      EXPECT_LE(spans[i - 1].second, spans[i].first) << tracks[tid];
  }
  EXPECT_EQ(tracks.begin()->second, "SM 0");
  // Fig. 3.9 on two SMs: SM 0 runs 4 blocks at once at its busiest, SM 1 three.
  EXPECT_EQ(tracks.size(), 7u);
}

namespace {
// The message load_examiner_results throws for one result file holding `text` ("" if none).
std::string reading_error(const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpurt-trace-bad-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "result.json").string();
  write_file_atomically(file, text);
  std::string message;
  try {
    (void)load_examiner_results({file});
  } catch (const InputError& e) {
    message = e.what();
  }
  std::filesystem::remove_all(dir);
  return message;
}
std::string result_with(const std::string& cpu_times, const std::string& launch, const std::string& blocks) {
  return R"({"times": [{}, {"cpu_times": )" + cpu_times +
         R"(}, {"kernel_name": "k", "thread_count": 256, "cuda_launch_times": )" + launch +
         R"(, "block_times": )" + blocks + R"(, "block_smids": [0]}]})";
}
}  // namespace

// A measured interval that ends before it starts is refused with its path (a clock that ran
// backwards would otherwise move a fit or a plot); times themselves may be absolute clocks.
TEST(Trace, MeasuredIntervalsThatEndBeforeTheyStartAreRefusedWithTheirPath) {
  EXPECT_EQ(reading_error(result_with("[100.0, 100.5]", "[100.0, 100.1, 100.4]", "[100.2, 100.3]")), "");
  EXPECT_EQ(reading_error(result_with("[-5.0, -4.0]", "[-5.0, -4.9, 0]", "[-4.8, -4.7]")), "");
  const std::string block = reading_error(result_with("[1.0, 2.0]", "[1.0, 1.1, 0]", "[1.3, 1.2]"));
  EXPECT_NE(block.find("times[2].block_times[1]"), std::string::npos) << block;
  EXPECT_NE(block.find("block ends before it starts"), std::string::npos) << block;
  const std::string cpu = reading_error(result_with("[2.0, 1.0]", "[1.0, 1.1, 0]", "[1.2, 1.3]"));
  EXPECT_NE(cpu.find("times[1].cpu_times[1]"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("ends before it starts"), std::string::npos) << cpu;
  const std::string launch = reading_error(result_with("[1.0, 2.0]", "[1.1, 1.0, 0]", "[1.2, 1.3]"));
  EXPECT_NE(launch.find("times[2].cuda_launch_times[1]"), std::string::npos) << launch;
  const std::string sync = reading_error(result_with("[1.0, 2.0]", "[1.0, 1.1, 1.05]", "[1.2, 1.3]"));
  EXPECT_NE(sync.find("times[2].cuda_launch_times[2]"), std::string::npos) << sync;
}

// gpurt's own block in a result file is strict (gpurt is its only writer): "simulate" for
// "simulated" read the file as measured.
TEST(Trace, GpurtsOwnBlockInAResultRefusesUnknownKeys) {
  const std::string ok = result_with("[1.0, 2.0]", "[1.0, 1.1, 0]", "[1.2, 1.3]");
  const std::string misspelled = ok.substr(0, ok.size() - 1) + R"(, "gpurt": {"simulate": true}})";
  const std::string error = reading_error(misspelled);
  EXPECT_NE(error.find("gpurt.simulate"), std::string::npos) << error;
  EXPECT_NE(error.find("simulated"), std::string::npos) << error;  // the hint names the key meant
  EXPECT_EQ(reading_error(ok.substr(0, ok.size() - 1) + R"(, "gpurt": {"simulated": true, "stream": 1}})"),
            "");
}

// A file that says the device's resident threads but records no block saw no SM: dividing the
// threads by the SMs seen was a division by zero (fuzz_results, 2026-11-27).
TEST(Trace, AFileWithResidentThreadsAndNoBlockReads) {
  EXPECT_EQ(reading_error(R"({"max_resident_threads": 4096, "times": [{}, {"cpu_times": [0.0, 1]}]})"), "");
}

// Times far apart overflowed a 64-bit duration (9e9 s minus -9e9 s is 1.8e19 ns): calibrate then
// fitted NaN and wrote its file. A time must lie in [-2^61, 2^62] ns, where any two differ by a
// 64-bit number; today's epoch clock (about 1.8e9 s) and negative times still read.
TEST(Trace, TimesOutsideTheRangeWhereDurationsFitAreRefused) {
  EXPECT_EQ(reading_error(result_with("[1.8e9, 1.8e9]", "[1.8e9, 1.8e9, 0]", "[1.8e9, 1.8e9]")), "");
  EXPECT_EQ(reading_error(result_with("[-2.3e9, -2.3e9]", "[-2.3e9, -2.3e9, 0]", "[-2.3e9, -2.3e9]")), "");
  const std::string far = reading_error(result_with("[1.0, 2.0]", "[1.0, 1.1, 0]", "[-9e9, 9e9]"));
  EXPECT_NE(
      far.find("times[2].block_times[0] = -9000000000.0: is not a time in seconds within [-2^61, 2^62] ns"),
      std::string::npos)
      << far;
  const std::string late = reading_error(result_with("[1.0, 5e9]", "[1.0, 1.1, 0]", "[1.2, 1.3]"));
  EXPECT_NE(late.find("times[1].cpu_times[1]"), std::string::npos) << late;
}

// What a picture cannot do without is required (a block without a thread count was drawn 0 px
// tall); a block count that the block times contradict is refused.
TEST(Trace, AKernelNeedsItsThreadCountAndABlockCountThatItsTimesHold) {
  const std::string ok = result_with("[1.0, 2.0]", "[1.0, 1.1, 0]", "[1.2, 1.3]");
  EXPECT_EQ(reading_error(ok), "");
  std::string none = ok;
  none.replace(none.find("\"thread_count\": 256, "), 21, "");
  EXPECT_NE(reading_error(none).find("times[2]: missing required key \"thread_count\""), std::string::npos)
      << reading_error(none);
  std::string top = ok;
  top.replace(top.find("{\"times\""), 1, "{\"block_count\": \"abc\", ");
  EXPECT_NE(reading_error(top).find("block_count = \"abc\""), std::string::npos) << reading_error(top);
  std::string twice = ok;
  twice.replace(twice.find("\"thread_count\""), 0, "\"block_count\": 2, ");
  EXPECT_NE(reading_error(twice).find("times[2].block_count = 2: but block_times holds 1 block(s)"),
            std::string::npos)
      << reading_error(twice);
  // A library kernel whose blocks nothing recorded (gpurt bench's cufft: thread_count 0, no
  // block times) is read; a thread count of 0 beside recorded blocks is not.
  std::string zero = ok;
  zero.replace(zero.find("\"thread_count\": 256"), 19, "\"thread_count\": 0");
  EXPECT_NE(
      reading_error(zero).find("times[2].thread_count = 0: must be >= 1 for a kernel with recorded blocks"),
      std::string::npos)
      << reading_error(zero);
  std::string library = result_with("[1.0, 2.0]", "[1.0, 1.1, 1.5]", "[]");
  library.replace(library.find("\"thread_count\": 256"), 19, "\"thread_count\": 0");
  library.replace(library.find("\"block_smids\": [0]"), 18, "\"block_smids\": []");
  EXPECT_EQ(reading_error(library), "");
}

// One picture is simulated or measured: files of both kinds are refused together (the title
// took the last file's word for all of them).
TEST(Trace, SimulatedAndMeasuredFilesAreNotMixed) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpurt-trace-mix-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string measured = (dir / "m.json").string(), simulated = (dir / "s.json").string();
  const std::string body = result_with("[1.0, 2.0]", "[1.0, 1.1, 0]", "[1.2, 1.3]");
  write_file_atomically(measured, body);
  write_file_atomically(simulated, body.substr(0, body.size() - 1) + R"(, "gpurt": {"simulated": true}})");
  EXPECT_TRUE(load_examiner_results({simulated, simulated}).simulated);
  EXPECT_FALSE(load_examiner_results({measured, measured}).simulated);
  for (const auto& files : {std::vector{simulated, measured}, std::vector{measured, simulated}}) {
    try {
      (void)load_examiner_results(files);
      ADD_FAILURE() << "mixed files were read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("plot simulated and measured results apart"), std::string::npos)
          << e.what();
    }
  }
  std::filesystem::remove_all(dir);
}
