// `gpurt simulate-rtgpu` and `gpurt analyze fifo --simulate` as a user runs them (simulated).
#include <gtest/gtest.h>

#include "cli_fixture.hpp"

#include <filesystem>
#include <fstream>
#include <vector>

#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"

namespace fs = std::filesystem;

namespace {

using gpurt::test::Outcome;

class RtgpuSimCli : public gpurt::test::CliTest {};

const std::string kTwo = GPURT_SOURCE_DIR "/examples/rtgpu/sim-two-tasks.json";
const std::string kTheorem1 = GPURT_SOURCE_DIR "/examples/fifo/theorem1.json";

// The hand-computed case of tests/sim/test_rtgpu_sim.cpp through the command.
TEST_F(RtgpuSimCli, SimulateRtgpuJsonShowsObservedNextToBound) {
  const Outcome r = cli("simulate-rtgpu " + kTwo + " --jobs 2 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const gpurt::Json j = gpurt::Json::parse(r.out);
  EXPECT_EQ(j.at("simulated"), true);
  EXPECT_EQ(j.at("model"), "ideal");  // gtx1080ti carries no fitted model
  EXPECT_EQ(j.at("late_kernels"), 0);
  const auto& h = j.at("tasks").at(0);
  EXPECT_EQ(h.at("name"), "H");
  EXPECT_DOUBLE_EQ(h.at("max_response").get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(h.at("min_response").get<double>(), 7.0);
  EXPECT_EQ(h.at("physical_sms"), 1);
  const auto& l = j.at("tasks").at(1);
  EXPECT_DOUBLE_EQ(l.at("max_response").get<double>(), 19.5);
  EXPECT_EQ(l.at("first_sm"), 1);
  const double bound = l.at("response_bound").get<double>();
  EXPECT_GE(bound, 19.5);
  EXPECT_DOUBLE_EQ(l.at("tightness").get<double>(), 19.5 / bound);
  const Outcome table = cli("simulate-rtgpu " + kTwo + " --jobs 2");
  ASSERT_EQ(table.code, 0);
  EXPECT_NE(table.out.find("simulated"), std::string::npos);
  EXPECT_NE(table.out.find("19.5"), std::string::npos);
}

TEST_F(RtgpuSimCli, ModelIdealIgnoresTheFilesPerformanceModel) {
  // The same system on a platform carrying a model (per-block jitter 0.5; worst execution takes
  // each WCET as the jitter's largest draw, so blocks run shorter): L's 19.5 moves; --model ideal
  // brings back the hand-computed timeline.
  const std::string file = write_edited("jittered.json", kTwo, R"("preset": "gtx1080ti", "sms": 2 })",
                                        R"("preset": "gtx1080ti", "sms": 2, "model": {"jitter": 0.5} })");
  const std::string args = "simulate-rtgpu " + file + " --jobs 2 --json";
  const auto [c, i] = json_under_both_models(args, args + " --model ideal");
  EXPECT_NE(c.at("tasks").at(1).at("max_response"), 19.5);
  EXPECT_DOUBLE_EQ(i.at("tasks").at(1).at("max_response").get<double>(), 19.5);
  EXPECT_EQ(cli("simulate-rtgpu --generated 2 --model ideal").code, 2);
}

TEST_F(RtgpuSimCli, GeneratedCheckWritesCsvAndPasses) {
  const std::string csv = (_dir / "t.csv").string();
  const Outcome r = cli("simulate-rtgpu --generated 30 --seed 2 --jobs 5 --csv " + csv);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("violations (observed > bound or < lower bound): 0"), std::string::npos) << r.out;
  const std::string text = gpurt::read_text_file(csv);
  EXPECT_EQ(text.rfind("set,task,sms,segments,bound_ms,lower_ms,deadline_ms,worst-sync_ms", 0), 0u) << text;
  EXPECT_NE(r.out.find("observed max / bound: min 0."), std::string::npos) << r.out;
  // One set, not schedulable (seed 4): no task checked, so no ratios -- not zeros.
  const Outcome none = cli("simulate-rtgpu --generated 1 --seed 4 --jobs 2");
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_NE(none.out.find(", 0 schedulable, 0 tasks,"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("observed max / bound: none (no schedulable set"), std::string::npos) << none.out;
  const Outcome json = cli("simulate-rtgpu --generated 1 --seed 4 --jobs 2 --json");
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_TRUE(gpurt::Json::parse(json.out).at("tightness").is_null()) << json.out;
}

TEST_F(RtgpuSimCli, BadInputExitsTwoWithNothingOnStdout) {
  for (const std::string& args : std::vector<std::string>{
           "simulate-rtgpu", "simulate-rtgpu " + kTwo + " --execution best",
           "simulate-rtgpu " + kTwo + " --jobs 0", "simulate-rtgpu " + kTwo + " --jitter -1",
           "simulate-rtgpu " + kTwo + " --generated 3", "simulate-rtgpu /nonexistent.json",
           "analyze fifo " + kTheorem1 + " --seed 3", "analyze fifo " + kTheorem1 + " --simulate 0"}) {
    const Outcome r = cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
    EXPECT_FALSE(r.err.empty()) << args;
  }
  const std::string bad = write("bad.json", R"({"format": "gpurt/rtgpu@1", "platform": "gtx1080ti",
      "tasks": [{"name": "a", "period": 10, "cpu": [[1, 2]], "copy": [[1, 1]], "gpu": []}]})");
  const Outcome r = cli("simulate-rtgpu " + bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("tasks[0].copy"), std::string::npos) << r.err;
}

// Theorem 1's system: τ3's simulated response times climb job over job.
TEST_F(RtgpuSimCli, FifoSimulateShowsTheorem1Growth) {
  const Outcome r = cli("analyze fifo " + kTheorem1 + " --simulate 30 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const gpurt::Json j = gpurt::Json::parse(r.out);
  EXPECT_EQ(j.at("at_or_above_limit"), true);
  const auto& sim = j.at("simulation");
  EXPECT_EQ(sim.at("offsets"), "synchronous");
  const auto& tau3 = sim.at("tasks").at(2).at("responses");
  ASSERT_EQ(tau3.size(), 30u);
  EXPECT_DOUBLE_EQ(tau3.at(0).get<double>(), 1.01);
  EXPECT_GT(tau3.at(29).get<double>(), tau3.at(0).get<double>() + 0.1);
  const Outcome seeded = cli("analyze fifo " + kTheorem1 + " --simulate 5 --seed 3");
  ASSERT_EQ(seeded.code, 0) << seeded.err;
  EXPECT_NE(seeded.out.find("random offsets (seed 3)"), std::string::npos) << seeded.out;
}

}  // namespace
