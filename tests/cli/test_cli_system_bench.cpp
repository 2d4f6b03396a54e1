// `gpurt bench SYSTEM` and `gpurt report SYSTEM --measured DIR` (issue 18), without a GPU: the
// "measurements" here are result files of the simulator (--backend sim), labelled as such.
#include "cli_fixture.hpp"
#include "gpurt/core/json.hpp"

namespace gpurt::test {
namespace {

constexpr const char* kSystem = R"({
  "format": "gpurt/system@1", "time_unit": "us", "platform": "rtx3060ti",
  "tasks": [
    {"name": "a", "period": 1000, "deadline": 900,
     "segments": [{"cpu": [100, 200]}, {"kernel": {"blocks": 38, "threads": 1024, "wcet": 300}}, {"cpu": 50}]},
    {"name": "b", "period": 2500,
     "segments": [{"cpu": 100}, {"kernel": {"blocks": 76, "threads": 1024, "wcet": 400}}]}
  ]})";

using SystemBench = CliTest;

double at(const Json& tasks, const std::string& name, const char* key) {
  for (const Json& t : tasks)
    if (t.at("name") == name) return t.at(key).get<double>();
  ADD_FAILURE() << "no task " << name;
  return -1;
}

TEST_F(SystemBench, SimulatedRunReadBackBesideTheBestEffortSimulation) {
  const std::string file = write("one.json", kSystem);
  const Outcome b = cli("bench " + file + " --backend sim --horizon 5000 --json --out " + path("out"));
  ASSERT_EQ(b.code, 0) << b.err;
  const Json bj = Json::parse(b.out);
  ASSERT_EQ(bj.at("instances").size(), 2u);
  EXPECT_EQ(bj.at("instances").at(0).at("label"), "a");
  EXPECT_EQ(bj.at("instances").at(0).at("iterations"), 5);  // 0, 1000, ..., 4000 < 5000 us
  EXPECT_EQ(bj.at("instances").at(1).at("iterations"), 2);  // 0, 2500

  const Outcome r = cli("report " + file + " --horizon 5000 --policies be --json --measured " + path("out"));
  ASSERT_EQ(r.code, 0) << r.err;
  const Json j = Json::parse(r.out);
  const Json& m = j.at("measured");
  EXPECT_EQ(m.at("source"), path("out"));
  EXPECT_EQ(m.at("simulated"), true);
  const Json& mt = m.at("tasks");
  EXPECT_EQ(at(mt, "a", "jobs"), 5);
  EXPECT_EQ(at(mt, "a", "misses"), 0);
  // No job starts late here, so each response is the iteration's execute phase: the bench's
  // worst execute time (s) in us.
  EXPECT_NEAR(at(mt, "a", "max_response"), bj.at("instances").at(0).at("worst_execute_s").get<double>() * 1e6,
              1e-3);
  // Not the same model as the report's `be` (that simulates the SMLP model: whole-SM blocks of
  // L(i,H)), so they agree within a tolerance only: 15 % (measured on the rtx3060ti preset, worst
  // responses: 744.812 vs 745.529 us for a, 446.913 vs 499.226 us for b; means within 6 %).
  const Json& be = j.at("simulated").at(0).at("tasks");
  for (const char* t : {"a", "b"}) {
    EXPECT_NEAR(at(mt, t, "max_response"), at(be, t, "max_response"), 0.15 * at(be, t, "max_response")) << t;
    EXPECT_NEAR(at(mt, t, "mean_response"), at(be, t, "mean_response"), 0.15 * at(be, t, "mean_response"))
        << t;
  }
  const Outcome text = cli("report " + file + " --horizon 5000 --policies be --measured " + path("out"));
  EXPECT_NE(text.out.find("SIMULATED result files"), std::string::npos) << text.out;
  ASSERT_EQ(cli("report " + file + " --horizon 5000 --policies be --measured " + path("out") + " --html " +
                path("r.html"))
                .code,
            0);
  const std::string html = read("r.html");
  EXPECT_NE(html.find("<table id=\"measured\">"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"l\">b</td><td>2</td>"), std::string::npos);
}

// An overloaded task (kernel of WCET 300 us every 100 us; the calibrated model runs it in about
// 222 us) queues its jobs: job k is released at k·T, not when its iteration starts, so the
// responses grow and jobs miss their deadline.
TEST_F(SystemBench, ResponsesCountFromThePeriodicReleaseNotTheIterationStart) {
  const std::string file = write("over.json", R"({
    "format": "gpurt/system@1", "time_unit": "us", "platform": "rtx3060ti",
    "tasks": [{"name": "c", "period": 100, "segments": [{"kernel": {"blocks": 38, "threads": 1024, "wcet": 300}}]}]})");
  const Outcome b = cli("bench " + file + " --backend sim --horizon 500 --json --out " + path("out"));
  ASSERT_EQ(b.code, 0) << b.err;
  const double execute_us =
      Json::parse(b.out).at("instances").at(0).at("worst_execute_s").get<double>() * 1e6;
  const Outcome r = cli("report " + file + " --horizon 500 --policies be --json --measured " + path("out"));
  ASSERT_EQ(r.code, 0) << r.err;
  const Json j = Json::parse(r.out);
  const Json& mt = j.at("measured").at("tasks");
  EXPECT_EQ(at(mt, "c", "jobs"), 5);
  // Job 4 released at 400 us ends after 5 back-to-back kernels (about 1.1 ms): response > execute time.
  EXPECT_GT(at(mt, "c", "max_response"), execute_us + 100);
  EXPECT_GE(at(mt, "c", "misses"), 3);
}

TEST_F(SystemBench, BadInput) {
  const std::string file = write("one.json", kSystem);
  const Outcome p = cli("bench " + file + " --platform rtx3060ti --out " + path("o"));
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("--platform"), std::string::npos) << p.err;
  // Result files of another system: a label that names no task.
  const std::string other = write("other.json", R"({
    "format": "gpurt/system@1", "time_unit": "us", "platform": "rtx3060ti",
    "tasks": [{"name": "z", "period": 1000, "segments": [{"kernel": {"wcet": 10}}]}]})");
  ASSERT_EQ(cli("bench " + other + " --out " + path("z")).code, 0);
  const Outcome r = cli("report " + file + " --measured " + path("z"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("names no task"), std::string::npos) << r.err;
  // Two result files of one task (a copy of a's left in a sub-folder, which is read too): which
  // is this run's cannot be told, so the report refuses rather than take the last one.
  ASSERT_EQ(cli("bench " + file + " --backend sim --horizon 5000 --out " + path("twice")).code, 0);
  std::filesystem::create_directories(path("twice/old"));
  std::filesystem::copy_file(path("twice/a.json"), path("twice/old/a.json"));
  const Outcome twice = cli("report " + file + " --horizon 5000 --policies be --measured " + path("twice"));
  EXPECT_EQ(twice.code, 2) << twice.err;
  EXPECT_NE(twice.err.find("label = a: two result files name this task: " + path("twice/a.json") + " and " +
                           path("twice/old/a.json")),
            std::string::npos)
      << twice.err;
  // Moved into the sub-folder, the copy is the only one: found there, the report runs.
  std::filesystem::remove(path("twice/a.json"));
  const Outcome moved = cli("report " + file + " --horizon 5000 --policies be --measured " + path("twice"));
  EXPECT_EQ(moved.code, 0) << moved.err;
  // A link loop named *.json cannot be looked at: exit 2 naming it, not a filesystem error.
  std::filesystem::create_symlink("loop.json", path("twice/loop.json"));
  const Outcome loop = cli("report " + file + " --horizon 5000 --policies be --measured " + path("twice"));
  EXPECT_EQ(loop.code, 2) << loop.err;
  EXPECT_EQ(loop.err.rfind("gpurt: error: " + path("twice/loop.json") + ": cannot be read: ", 0), 0u)
      << loop.err;
}

}  // namespace
}  // namespace gpurt::test
