// `gpurt report` as a user runs it: exit codes, the JSON on stdout, the HTML file written only
// after the work and never for bad input.
#include <filesystem>

#include "../exp/report_two_tasks.hpp"
#include "cli_fixture.hpp"
#include "gpurt/core/json.hpp"

namespace gpurt::test {
namespace {

const std::string kMixed = std::string(GPURT_SOURCE_DIR) + "/examples/system/mixed.system.json";

using gpurt::test::kTwoTasks;

using ReportCli = CliTest;

TEST_F(ReportCli, JsonReportOfAHandComputedSystem) {
  const std::string file = write("two.json", kTwoTasks);
  const Outcome r = cli("report " + file + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j.at("format"), "gpurt/report@1");
  // FFT/SMLP Lemma 2 + CPU, by hand in tests/exp/test_report.cpp: 125.527 and 205.264 us.
  EXPECT_EQ(j.at("analyses").at(0).at("tasks").at(0).at("bound"), 125.527);
  EXPECT_EQ(j.at("analyses").at(0).at("tasks").at(1).at("bound"), 205.264);
  EXPECT_EQ(j.at("consistency").at("ok"), true);
  EXPECT_EQ(j.at("horizon"), 2000);
}

TEST_F(ReportCli, ModelIdealSimulatesWithoutThePlatformsFittedModel) {
  // mixed.system.json runs on rtx3060ti, whose preset carries a fitted model (switch cost,
  // jitter): the simulated responses move with --model, the analyses' bounds do not.
  const std::string args = "report " + kMixed + " --policies smlp,be --json";
  const auto [c, i] = json_under_both_models(args, args + " --model ideal");
  EXPECT_EQ(c.at("analyses"), i.at("analyses"));
  EXPECT_NE(c.at("simulated"), i.at("simulated"));
  EXPECT_NE(cli("report " + kMixed + " --model ideal").out.find("Simulated (ideal performance model)"),
            std::string::npos);
  const Outcome bad = cli("report " + kMixed + " --model exact");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--model"), std::string::npos) << bad.err;
}

TEST_F(ReportCli, TextReportNamesEverySection) {
  const Outcome r = cli("report " + kMixed);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* s :
       {"Analyses", "Simulated", "Not applicable:", "Recommendation:", "Consistency:", "rtgpu-federated"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

// A fifo@1 system has one unit (the GPU): without --k, kx runs with k = 1 instead of refusing
// the file with a --k the user never gave; a --k above the units is still refused.
TEST_F(ReportCli, FifoFilesAreReportedWithKAtMostTheirOneUnit) {
  for (const char* file : {"example2.json", "theorem1.json"}) {
    const std::string path = std::string(GPURT_SOURCE_DIR "/examples/fifo/") + file;
    const Outcome r = cli("report " + path + " --json");
    ASSERT_EQ(r.code, 0) << file << ": " << r.err;
    const Json doc = Json::parse(r.out);
    bool kx_ran = false;
    for (const Json& p : doc.at("simulated"))
      if (p.at("policy") == "kx") kx_ran = p.at("ran").get<bool>();
    EXPECT_TRUE(kx_ran) << file;
  }
  const Outcome r = cli("report " + std::string(GPURT_SOURCE_DIR "/examples/fifo/example2.json") + " --k 2");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--k = 2: must be 1..1"), std::string::npos) << r.err;
}

TEST_F(ReportCli, HtmlIsWrittenWithFigures) {
  const Outcome r = cli("report " + kMixed + " --policies smlp,be --html " + path("r.html"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read("r.html");
  EXPECT_NE(html.find("<table id=\"simulated\">"), std::string::npos);
  EXPECT_NE(html.find("class=\"timeline\""), std::string::npos);
  EXPECT_NE(html.find("<figure class=\"cdf\">"), std::string::npos);
}

TEST_F(ReportCli, BadInputExitsTwoAndWritesNothing) {
  const std::string file = write("two.json", kTwoTasks);
  Outcome r = cli("report " + file + " --policies smlp,nope --html " + path("r.html"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("r.html")));
  r = cli("report " + file + " --html " + path("no/such/folder/r.html"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--html"), std::string::npos) << r.err;
  r = cli("report " + path("missing.json"));
  EXPECT_EQ(r.code, 2);
  const std::string bad = write("bad.json", R"({"format": "gpurt/system@1", "tasks": [{"name": "x"}]})");
  r = cli("report " + bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
  r = cli("report " + file + " --horizon nan");
  EXPECT_EQ(r.code, 2);
  // --k beyond the platform's 19 units is refused (it was clamped silently), as is an empty
  // policy name (",", which used to run every policy).
  r = cli("report " + file + " --k 30");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--k = 30: must be 1..19 (the units of rtx3060ti)"), std::string::npos) << r.err;
  r = cli("report " + file + " --policies ,");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--policies = ,: holds an empty policy name"), std::string::npos) << r.err;
  EXPECT_EQ(cli("report " + file + " --k 19 --policies kx").code, 0);
}

}  // namespace
}  // namespace gpurt::test
