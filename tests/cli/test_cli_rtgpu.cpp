// `gpurt analyze rtgpu|fifo` and `gpurt generate rtgpu` as a user runs them.
#include <gtest/gtest.h>

#include "cli_fixture.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"

namespace fs = std::filesystem;

namespace {

using gpurt::test::Outcome;

class RtgpuCli : public gpurt::test::CliTest {};

const std::string kPair = GPURT_SOURCE_DIR "/examples/rtgpu/two-tasks.json";

TEST_F(RtgpuCli, JsonHasTheDocumentedShape) {
  const Outcome r = cli("analyze rtgpu " + kPair + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const gpurt::Json j = gpurt::Json::parse(r.out);
  EXPECT_EQ(
      j.dump(),
      R"({"schedulable":true,"method":"rtgpu","allocation":{"A":2,"B":2},"throughput_gain":1.0,"tasks":[)"
      R"({"name":"A","response_bound":12.0,"deadline":20.0,"schedulable":true,"analysable":true},)"
      R"({"name":"B","response_bound":20.0,"deadline":50.0,"schedulable":true,"analysable":true}]})");
}

TEST_F(RtgpuCli, MethodsAndSearches) {
  const Outcome stgm = cli("analyze rtgpu " + kPair + " --method stgm --search brute --json");
  ASSERT_EQ(stgm.code, 0) << stgm.err;
  // Brute force finds (1, 1) first; STGM's hand-computed bounds are 12 and 36 (test_rtgpu_lemmas).
  EXPECT_EQ(gpurt::Json::parse(stgm.out)["tasks"][1]["response_bound"], 36.0);
  const Outcome table = cli("analyze rtgpu " + kPair + " --method self-suspension");
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("schedulable: yes"), std::string::npos) << table.out;
  // GCAPS round robin: whole GPU for both (4 virtual SMs), bounds 8.672 and 23.568 (worked in
  // test_rtgpu_lemmas' GcapsRoundRobinByHand).
  const Outcome rr = cli("analyze rtgpu " + kPair + " --method gcaps-rr --json");
  ASSERT_EQ(rr.code, 0) << rr.err;
  const gpurt::Json j = gpurt::Json::parse(rr.out);
  EXPECT_EQ(j["method"], "gcaps-rr");
  EXPECT_EQ(j["allocation"]["B"], 4);
  EXPECT_EQ(j["tasks"][1]["response_bound"], 23.568);
  EXPECT_TRUE(j["throughput_gain"].is_null());  // every kernel on the whole GPU: no allocation to weigh
}

// More tasks with GPU segments than SMs: the allocation shown (one SM each) does not fit, so no
// throughput gain is given (eq. (10) on it gave +200 %, above the at most +100 % any fitting
// allocation of alpha = 1 kernels can reach).
TEST_F(RtgpuCli, NoThroughputGainForAnAllocationThatDoesNotFit) {
  const std::string f = write("toomany.json", R"({"format": "gpurt/rtgpu@1", "time_unit": "ms",
      "platform": {"preset": "gtx1080ti", "sms": 1}, "tasks": [
      {"name": "H", "period": 100, "priority": 1, "cpu": [[1, 1], [1, 1]], "copy": [[1, 1], [1, 1]],
       "gpu": [{"work": [2, 2], "overhead": 0, "alpha": 1}]},
      {"name": "K", "period": 24, "priority": 2, "cpu": [[1, 1], [1, 1]], "copy": [[1, 1], [1, 1]],
       "gpu": [{"work": [4, 4], "overhead": 0, "alpha": 1}]}]})");
  for (const char* method : {"rtgpu", "stgm"}) {
    const Outcome r = cli(fmt::format("analyze rtgpu {} --method {} --json", f, method));
    ASSERT_EQ(r.code, 0) << r.err;
    const gpurt::Json j = gpurt::Json::parse(r.out);
    EXPECT_EQ(j["schedulable"], false) << method;
    EXPECT_TRUE(j["throughput_gain"].is_null()) << method << ": " << r.out;
    EXPECT_EQ(cli(fmt::format("analyze rtgpu {} --method {}", f, method)).out.find("throughput gain"),
              std::string::npos);
  }
}

// A set of 60 tasks of 60 segments takes minutes (about the fifth power of the count); the
// analyses stop at their time limit with exit 1, in the fixed point as between task analyses
// (--max-analyses never fires for self-suspension, one analysis a task). nan is no limit.
TEST_F(RtgpuCli, AnalysesStopAtTheirTimeLimit) {
  const Outcome g = cli("generate rtgpu --utilization 2 --tasks 60 --subtasks 60 --sms 65536 --seed 3");
  ASSERT_EQ(g.code, 0) << g.err;
  const std::string set = write("g60.json", g.out);
  for (const char* method : {"self-suspension", "rtgpu"}) {
    const auto start = std::chrono::steady_clock::now();
    const Outcome r = cli("analyze rtgpu " + set + " --method " + method + " --max-seconds 0.5");
    EXPECT_EQ(r.code, 1) << method << r.err;
    EXPECT_NE(r.err.find("the analysis ran past its time limit of 0.5 s (--max-seconds raises it"),
              std::string::npos)
        << r.err;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << method;
  }
  const Outcome sweep =
      cli("sweep rtgpu --tasks 60 --subtasks 60 --u-min 2 --u-max 2 --sets 1 --threads 1 --quiet "
          "--max-seconds 0.5 --out " +
          path("s.csv"));
  EXPECT_EQ(sweep.code, 1) << sweep.err;
  EXPECT_NE(sweep.err.find("time limit of 0.5 s"), std::string::npos) << sweep.err;
  const Outcome nan = cli("analyze rtgpu " + set + " --max-seconds nan");
  EXPECT_EQ(nan.code, 2);
  EXPECT_NE(nan.err.find("must be a finite number, not nan"), std::string::npos) << nan.err;
}

TEST_F(RtgpuCli, CheckExitsOneWhenUnschedulable) {
  std::string text = gpurt::read_text_file(kPair);
  text.replace(text.find("\"period\": 50"), 12, "\"period\": 50, \"deadline\": 19");
  const std::string f = write("tight.json", text);
  EXPECT_EQ(cli("analyze rtgpu " + f).code, 0);
  const Outcome r = cli("analyze rtgpu " + f + " --check");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("B: "), std::string::npos) << r.out;
}

TEST_F(RtgpuCli, BadInputExitsTwoWithNothingOnStdout) {
  std::string text = gpurt::read_text_file(kPair);
  text.replace(text.find("\"alpha\": 1"), 10, "\"alpha\": 0.5");
  const Outcome r = cli("analyze rtgpu " + write("bad.json", text) + " --json");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("tasks[0].gpu[0].alpha = 0.5: must be >= 1"), std::string::npos) << r.err;
  EXPECT_EQ(cli("analyze rtgpu " + kPair + " --method nope").code, 2);
}

TEST_F(RtgpuCli, FifoExample2) {
  const Outcome r = cli("analyze fifo " GPURT_SOURCE_DIR "/examples/fifo/example2.json --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const gpurt::Json j = gpurt::Json::parse(r.out);
  EXPECT_EQ(j["b_max"], 1024);
  EXPECT_EQ(j["limit"], 3073.0);
  EXPECT_EQ(j["at_or_above_limit"], true);
  // --check: exit 1 in Theorem 1's region (U_sum 3784.7 >= 3073), 0 below it (one task of the
  // example's C/T with a 1-thread grid: U_sum far below the limit).
  EXPECT_EQ(cli("analyze fifo " GPURT_SOURCE_DIR "/examples/fifo/example2.json --check").code, 1);
  const std::string light =
      write("light.json", R"({"format": "gpurt/fifo@1", "time_unit": "ms", "gpu_threads": 4096,
    "tasks": [{"name": "a", "wcet": 1, "period": 10, "grid": 2, "block": 512}]})");
  const Outcome ok = cli("analyze fifo " + light + " --check");
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST_F(RtgpuCli, GenerateIsDeterministicAndAnalysable) {
  const Outcome a = cli("generate rtgpu --utilization 0.5 --seed 42");
  const Outcome b = cli("generate rtgpu --utilization 0.5 --seed 42");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const Outcome r = cli("analyze rtgpu " + write("gen.json", a.out) + " --json");
  EXPECT_EQ(r.code, 0) << r.err;
}

// What the generator cannot make as asked is refused (exit 2), not written: periods capped at
// 10^15 ns gave a set 600 times the asked utilisation (1e-9) or 8 % above it (scale 10^6), and a
// tiny scale rounded GPU segments to 0 ns, a file analyze rtgpu refuses.
TEST_F(RtgpuCli, GenerateRefusesWhatItCannotMakeAsAsked) {
  Outcome r = cli("generate rtgpu --utilization 1e-9 --seed 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--utilization = 1e-09: gives a set of utilization"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = cli("generate rtgpu --utilization 1 --suspension-scale 1e6 --seed 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("periods are capped at 10^15 ns"), std::string::npos) << r.err;
  r = cli("generate rtgpu --utilization 1 --suspension-scale 1e-7 --seed 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--suspension-scale = 1e-07: makes the shortest GPU segment"), std::string::npos)
      << r.err;
  EXPECT_EQ(cli("generate rtgpu --utilization 1 --suspension-scale 1e-3 --seed 1").code, 0);
}

}  // namespace
