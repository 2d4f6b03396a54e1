// Writers and readers of the trace: examiner JSON round trip, SVG and Perfetto content.
#include <gtest/gtest.h>

#include <filesystem>

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

TEST(Trace, PerfettoHasOneTrackPerSmAndOneEventPerBlock) {
  const SimResult r = cut_ahead();
  const Json t = perfetto_trace(r.trace);
  int blocks = 0, sm_tracks = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == 1) ++blocks;
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 1) ++sm_tracks;
  }
  EXPECT_EQ(blocks, 10);
  EXPECT_EQ(sm_tracks, 2);
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
  return R"({"times": [{}, {"cpu_times": )" + cpu_times + R"(}, {"kernel_name": "k", "cuda_launch_times": )" +
         launch + R"(, "block_times": )" + blocks + R"(, "block_smids": [0]}]})";
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
