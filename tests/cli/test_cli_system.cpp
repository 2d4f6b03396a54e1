// `gpurt simulate-system` and `gpurt simulate` on AMD configs, as a user runs them.
#include <gtest/gtest.h>

#include "cli_fixture.hpp"

#include <filesystem>

#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"

namespace fs = std::filesystem;

namespace {

using gpurt::test::Outcome;

class CliSystem : public gpurt::test::CliTest {};

const std::string kExamples = GPURT_SOURCE_DIR "/examples/";

TEST_F(CliSystem, FederatedProtectsMediumAsJson) {
  const Outcome r = cli("simulate-system " + kExamples +
                        "system/medium-vs-large.json --policy federated --horizon 100 --model ideal --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const gpurt::Json j = gpurt::parse_json(r.out, "stdout");
  EXPECT_TRUE(j.at("simulated").get<bool>());
  EXPECT_EQ(j.at("policy"), "federated");
  // 0.5 ms CPU + 1 ms on its own 15 CUs, five jobs (0, 20, ..., 80 ms).
  EXPECT_EQ(j.at("tasks")[0].at("worst_response").get<double>(), 1.5);
  EXPECT_EQ(j.at("tasks")[0].at("units").get<int>(), 15);
  EXPECT_EQ(j.at("tasks")[0].at("jobs").get<int>(), 5);
  EXPECT_EQ(j.at("model"), "ideal");
  // The preset's calibrated model (radeon-vii: kernel_jitter 0.02) scales each WCET kernel by
  // (1 + V)/1.02, V in [0, 0.02]: never slower than the 1 ms it was given, at worst 2 % faster.
  const Outcome c = cli("simulate-system " + kExamples +
                        "system/medium-vs-large.json --policy federated --horizon 100 --json");
  ASSERT_EQ(c.code, 0) << c.err;
  const gpurt::Json jc = gpurt::parse_json(c.out, "stdout");
  EXPECT_EQ(jc.at("model"), "calibrated");
  const double worst = jc.at("tasks")[0].at("worst_response").get<double>();
  EXPECT_LT(worst, 1.5);
  EXPECT_GE(worst, 0.5 + 1.0 / 1.02 - 1e-6);
  const Outcome bad = cli("simulate-system " + kExamples +
                          "system/medium-vs-large.json --policy federated --horizon 100 --model exact");
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(bad.out.empty());
  EXPECT_NE(bad.err.find("--model"), std::string::npos) << bad.err;
}

TEST_F(CliSystem, TableAndBadInput) {
  const Outcome r = cli("simulate-system " + kExamples +
                        "system/four-identical.json --policy kx --k 1 --job-lock --horizon 48 --model ideal");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("simulated"), std::string::npos);
  EXPECT_NE(r.out.find("nn3      2     20    20"), std::string::npos) << r.out;
  const Outcome bad =
      cli("simulate-system " + kExamples + "system/four-identical.json --policy edf --horizon 10");
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(bad.out.empty());
  EXPECT_NE(bad.err.find("edf"), std::string::npos) << bad.err;
  const Outcome k =
      cli("simulate-system " + kExamples + "system/four-identical.json --policy kx --k 61 --horizon 10");
  EXPECT_EQ(k.code, 2);
  // --kx-shared, like --k, is refused with another policy, not ignored.
  const Outcome shared =
      cli("simulate-system " + kExamples + "system/four-identical.json --policy be --kx-shared --horizon 10");
  EXPECT_EQ(shared.code, 2);
  EXPECT_NE(shared.err.find("--kx-shared = true: applies only to --policy kx"), std::string::npos)
      << shared.err;
}

// A task whose random offset falls past the horizon completes no job: it has no responses (null,
// "-"), and whether its bounds hold is unknown (it said 0 and "holds").
TEST_F(CliSystem, ATaskWithoutJobsHasNoResponses) {
  const std::string args = "simulate-system " + kExamples +
                           "system/four-identical.json --policy smlp --horizon 1 --random-offsets --seed 1 "
                           "--model ideal";
  const Outcome r = cli(args + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  int without = 0;
  const gpurt::Json doc = gpurt::Json::parse(r.out);
  for (const auto& t : doc.at("tasks")) {
    if (t.at("jobs").get<int>() != 0) continue;
    ++without;
    EXPECT_TRUE(t.at("worst_response").is_null()) << t.dump();
    EXPECT_TRUE(t.at("mean_response").is_null()) << t.dump();
    EXPECT_TRUE(t.at("smlp_bound_holds").is_null()) << t.dump();
  }
  EXPECT_GT(without, 0) << r.out;
  const Outcome text = cli(args);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("nn0      0      -     -"), std::string::npos) << text.out;
}

// A horizon past the simulator's bound on simulated time (10^18 ns) is refused up front, naming
// the option (it ran until the simulator stopped, exit 1, naming a config's max_time).
TEST_F(CliSystem, AHorizonPastTheSimulatorsBoundIsRefused) {
  // 2e12 ms = 2e18 ns: within 64 bits, past 10^18 ns.
  for (const std::string& command :
       {"simulate-system " + kExamples + "system/four-identical.json --policy kx --k 1 --horizon 2e12",
        "report " + kExamples + "system/four-identical.json --horizon 2e12",
        "simulate-system " + kExamples + "system/four-identical.json --policy kx --k 1 --horizon 1e300"}) {
    const Outcome r = cli(command);
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_NE(r.err.find("--horizon = "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is past the simulator's bound of 10^9 s (10^18 ns; the value is in ms)"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty()) << command;
  }
  // 10^12 ms is the bound itself: accepted as far as the job limit, which then names it.
  const Outcome at =
      cli("simulate-system " + kExamples + "system/four-identical.json --policy kx --k 1 --horizon 1e12");
  EXPECT_EQ(at.code, 2);
  EXPECT_NE(at.err.find("more than --max-jobs"), std::string::npos) << at.err;
}

TEST_F(CliSystem, ComputeUnitMaskOnNvidiaIsAnInputError) {
  const Outcome r =
      cli("simulate " + kExamples + "amd/mm1024_vs_mm256_even.json --platform h100 --out /tmp/gpurt-x");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("compute_unit_mask"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not an AMD GPU"), std::string::npos) << r.err;
}

}  // namespace
