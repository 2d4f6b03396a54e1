// The `gpurt` command as a user runs it: output, exit codes, and silence on stdout for bad input.
#include <gtest/gtest.h>

#include "cli_fixture.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "gpurt/bench/results.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"

namespace fs = std::filesystem;

namespace {

using gpurt::test::Outcome;

class Cli : public gpurt::test::CliTest {};

const std::string kExample = GPURT_SOURCE_DIR "/examples/smlp/cufft-rtx3060ti.json";

}  // namespace

TEST_F(Cli, AnalyzeSmlpTable) {
  const Outcome r = cli("analyze smlp " + kExample);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("H = 19 units"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fft-2^24  {1..4}   9101  10004   170.843  9271.843     10000  yes"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("schedulable: NO (4 of 5 tasks with a deadline meet it)"), std::string::npos);
}

TEST_F(Cli, AnalyzeSmlpJsonHasExactlyTheDocumentedFields) {
  const Outcome r = cli("analyze smlp " + kExample + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const gpurt::Json j = gpurt::parse_json(r.out, "stdout");
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"units", "schedulable", "tasks"}));
  EXPECT_EQ(j["units"], 19);
  EXPECT_EQ(j["schedulable"], false);
  const auto& t0 = j["tasks"][0];
  keys.clear();
  for (const auto& [k, v] : t0.items()) keys.push_back(k);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"name", "allowed_units", "l_max", "a_max", "blocking_bound",
                                      "response_bound", "job_bound", "period", "deadline", "schedulable"}));
  EXPECT_DOUBLE_EQ(t0["job_bound"].get<double>(), 9271.843);  // no CPU segments: the response
  EXPECT_TRUE(t0["period"].is_null());
  EXPECT_EQ(t0["allowed_units"], gpurt::Json({1, 2, 3, 4}));
  EXPECT_DOUBLE_EQ(t0["response_bound"].get<double>(), 9271.843);
  EXPECT_DOUBLE_EQ(t0["a_max"].get<double>(), 10004.0);
  EXPECT_DOUBLE_EQ(t0["deadline"].get<double>(), 10000.0);
}

TEST_F(Cli, CheckExitsOneWhenUnschedulableAndZeroWhenSchedulable) {
  EXPECT_EQ(cli("analyze smlp " + kExample + " --check").code, 1);
  // With ρ = 1 every task keeps only one unit: ΣA = 9101+2270+560+140+12 = 12083; the 2^14
  // kernel's bound is 12 + 12071/19 = 647.3 us, still > 500.
  EXPECT_EQ(cli("analyze smlp " + kExample + " --check --rho 1").code, 1);
  const std::string ok = write("ok.json", R"({"format": "gpurt/smlp@1", "platform": "jetson-tx2",
      "tasks": [{"name": "a", "wcet_by_units": [10, 6], "deadline": 20},
                {"name": "b", "wcet_by_units": [4], "deadline": 11}]})");
  // a: S={1} (12 > 11), A_max 10; b: A_max 4. R_a = 10 + 4/2 = 12; R_b = 4 + 10/2 = 9.
  const Outcome r = cli("analyze smlp " + ok + " --check --json");
  EXPECT_EQ(r.code, 0) << r.err;
  const gpurt::Json j = gpurt::parse_json(r.out, "stdout");
  EXPECT_DOUBLE_EQ(j["tasks"][0]["response_bound"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(j["tasks"][1]["response_bound"].get<double>(), 9.0);
}

// A job's bound adds the task's CPU segments to Lemma 2; a task without a deadline has its
// period as one; a bound above the period is not claimed (Lemma 1 counts one request per task).
// The verdicts agree with `gpurt report` and with what simulate-system shows for the same files.
// Inputs each within their limits whose combination the analysis cannot represent, or that a
// command cannot run, are bad input naming the file and field (audit, 2026-11-27): an area
// k·L(i,k) past 2^63 ns (10^15 ns on 9224 units), a task that simulate-system cannot release
// (no period, no deadline), and --k given to another policy; a one-unit GPU simulates without
// --k. Bounds past 2^53 ns print in JSON never below their exact value.
TEST_F(Cli, SmlpInputsTheAnalysisOrSimulatorCannotTakeAreBadInput) {
  std::string units;
  for (int k = 0; k < 9224; ++k) units += (k == 0 ? "" : ",") + std::string("1e15");
  const std::string big = write("big.json", R"({"format": "gpurt/smlp@1", "time_unit": "ns",
      "platform": {"preset": "h100", "sms": 9224, "partition_unit": 1}, "rho": 1000000,
      "tasks": [{"name": "a", "wcet_by_units": [)" +
                                                units + "]}]}");
  const Outcome area = cli("analyze smlp " + big);
  EXPECT_EQ(area.code, 2) << area.err;
  EXPECT_NE(area.err.find("big.json: tasks[0].wcet_by_units[9223] = 1e+15: makes the area A = 9224 x L"),
            std::string::npos)
      << area.err;
  const std::string no_period = write("np.json", R"({"format": "gpurt/smlp@1", "time_unit": "us",
      "platform": "rtx3060ti", "tasks": [{"name": "a", "wcet_by_units": [20], "period": 100},
                                         {"name": "b", "wcet_by_units": [20]}]})");
  EXPECT_EQ(cli("analyze smlp " + no_period).code, 0);
  const Outcome np = cli("simulate-system " + no_period + " --horizon 300");
  EXPECT_EQ(np.code, 2) << np.err;
  EXPECT_NE(np.err.find("np.json: tasks[1] = b: has neither a period nor a deadline"), std::string::npos)
      << np.err;
  const std::string one = write("one.json", R"({"format": "gpurt/smlp@1", "time_unit": "us",
      "platform": {"preset": "rtx3060ti", "sms": 2}, "tasks": [{"name": "a", "wcet_by_units": [10], "period": 30},
                                                               {"name": "b", "wcet_by_units": [10], "period": 30}]})");
  // --max-jobs counts jobs: a whole number (0.5 was taken and reported as "--max-jobs 0").
  const Outcome half = cli("simulate-system " + one + " --horizon 300 --max-jobs 0.5");
  EXPECT_EQ(half.code, 2) << half.err;
  const Outcome few = cli("simulate-system " + one + " --horizon 300 --max-jobs 1");
  EXPECT_EQ(few.code, 2) << few.err;
  EXPECT_NE(few.err.find("releases about 20 jobs, more than --max-jobs 1;"), std::string::npos) << few.err;
  for (const char* policy : {"be", "smlp", "kx"})  // (federated needs a unit per task)
    EXPECT_EQ(cli("simulate-system " + one + " --horizon 300 --policy " + policy).code, 0) << policy;
  const Outcome k = cli("simulate-system " + one + " --horizon 300 --policy smlp --k 1");
  EXPECT_EQ(k.code, 2) << k.err;
  EXPECT_NE(k.err.find("command line: --k = 1: applies only to --policy kx"), std::string::npos) << k.err;
  // --k 0 is given, not left out: refused with its value (it once ran as the default 2), with
  // kx and with any other policy.
  for (const char* args : {" --policy kx --k 0", " --policy smlp --k 0", " --policy kx --k -1"}) {
    const Outcome zero = cli("simulate-system " + one + " --horizon 300" + args);
    EXPECT_EQ(zero.code, 2) << args << ": " << zero.err;
    EXPECT_NE(zero.err.find("command line: --k = "), std::string::npos) << args << ": " << zero.err;
  }
  std::string tasks;
  for (int i = 0; i < 20; ++i)
    tasks += fmt::format(R"({}{{"name": "t{}", "wcet_by_units": [999999999999999]}})", i == 0 ? "" : ",", i);
  const std::string wide = write("wide.json", R"({"format": "gpurt/smlp@1", "time_unit": "ns",
      "platform": {"preset": "rtx3060ti", "sms": 2}, "tasks": [)" +
                                                  tasks + "]}");
  const Outcome json = cli("analyze smlp " + wide + " --json");
  ASSERT_EQ(json.code, 0) << json.err;
  const gpurt::Json j = gpurt::parse_json(json.out, "stdout");
  const double blocking = j["tasks"][0]["blocking_bound"].get<double>();
  // 19 other tasks, H = 1: 18999999999999981 ns, which the nearest double (…980) is below.
  EXPECT_GE(static_cast<long double>(blocking), 18'999'999'999'999'981.0L);
}

TEST_F(Cli, AnalyzeSmlpCountsCpuSegmentsPeriodsAndOverlappingJobs) {
  const std::string cpu = write("cpu.json", R"({"format": "gpurt/smlp@1", "time_unit": "ms",
      "platform": "jetson-tx1", "tasks": [{"name": "a", "wcet_by_units": [5], "period": 20,
      "deadline": 12, "cpu_before": 10, "cpu_after": 0.5}]})");
  Outcome r = cli("analyze smlp " + cpu + " --check --json");
  EXPECT_EQ(r.code, 1) << r.err;
  gpurt::Json j = gpurt::parse_json(r.out, "stdout");
  EXPECT_DOUBLE_EQ(j["tasks"][0]["response_bound"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(j["tasks"][0]["job_bound"].get<double>(), 15.5);  // 10 + 5 + 0.5 > 12
  EXPECT_DOUBLE_EQ(j["tasks"][0]["period"].get<double>(), 20.0);
  r = cli("analyze smlp " + cpu);
  EXPECT_NE(
      r.out.find("job bound 15.5 ms (cpu_before 10 ms + L_max 5 ms + blocking 0 ms + cpu_after 0.5 ms) > "
                 "deadline 12 ms"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("response   job  deadline"), std::string::npos) << r.out;

  // Three 5 ms kernels of one unit every 5 ms on 2 units: Lemma 2 gives 10 ms, within D = 20,
  // but the GPU is overloaded (3 units of work for 2) and jobs queue without limit.
  const std::string over = write("over.json", R"({"format": "gpurt/smlp@1", "time_unit": "ms",
      "platform": "jetson-tx1", "tasks": [
      {"name": "a", "wcet_by_units": [5], "period": 5, "deadline": 20},
      {"name": "b", "wcet_by_units": [5], "period": 5, "deadline": 20},
      {"name": "c", "wcet_by_units": [5], "period": 5}]})");
  r = cli("analyze smlp " + over + " --check --json");
  EXPECT_EQ(r.code, 1) << r.err;
  j = gpurt::parse_json(r.out, "stdout");
  EXPECT_DOUBLE_EQ(j["tasks"][0]["response_bound"].get<double>(), 10.0);
  EXPECT_EQ(j["tasks"][0]["schedulable"], false);
  EXPECT_DOUBLE_EQ(j["tasks"][2]["deadline"].get<double>(), 5.0);  // the period, as in `report`
  const Outcome sim = cli("simulate-system " + over + " --policy smlp --horizon 100 --model ideal");
  EXPECT_EQ(sim.code, 0) << sim.err;
  EXPECT_NE(sim.err.find("gpurt: warning: task a: the SMLP bound 10 ms is above its period 5 ms"),
            std::string::npos)
      << sim.err;
  EXPECT_NE(sim.out.find("10 *"), std::string::npos) << sim.out;
  const gpurt::Json sj = gpurt::parse_json(
      cli("simulate-system " + over + " --policy smlp --horizon 100 --model ideal --json").out, "stdout");
  EXPECT_EQ(sj["tasks"][0]["smlp_bound_holds"], false);
  EXPECT_EQ(sj["tasks"][0]["policy_bound_holds"], false);

  // Every period above the bound: schedulable, and the simulation's bounds hold.
  const std::string fits = write("fits.json", R"({"format": "gpurt/smlp@1", "time_unit": "ms",
      "platform": "jetson-tx1", "tasks": [
      {"name": "a", "wcet_by_units": [5], "period": 10},
      {"name": "b", "wcet_by_units": [5], "period": 10}]})");
  EXPECT_EQ(cli("analyze smlp " + fits + " --check").code, 0);
  const gpurt::Json fj = gpurt::parse_json(
      cli("simulate-system " + fits + " --policy smlp --horizon 100 --model ideal --json").out, "stdout");
  EXPECT_EQ(fj["tasks"][0]["smlp_bound_holds"], true);
  EXPECT_DOUBLE_EQ(fj["tasks"][0]["deadline"].get<double>(), 10.0);  // implicit D = T, as analyze smlp
  EXPECT_EQ(fj["tasks"][0]["policy_bound_holds"], true);
  EXPECT_EQ(fj["tasks"][0]["policy_bound_claimed"], true);
  // The SMLP column bounds only the SMLP with a kernel lock: under kx (k = 1) B's 20 ms passes it
  // (15 ms) but not kx's own bound (20 ms): no "!", exit 0, and the SMLP bound is not claimed.
  const std::string two = write("two.json", R"({"format": "gpurt/smlp@1", "time_unit": "ms",
      "platform": "jetson-tx2", "rho": 1.0, "tasks": [
      {"name": "A", "wcet_by_units": [10, 10], "period": 100},
      {"name": "B", "wcet_by_units": [10, 10], "period": 100}]})");
  const Outcome kx = cli("simulate-system " + two + " --policy kx --k 1 --horizon 100 --model ideal --json");
  EXPECT_EQ(kx.code, 0) << kx.err;
  const gpurt::Json kj = gpurt::parse_json(kx.out, "stdout");
  EXPECT_DOUBLE_EQ(kj["tasks"][1]["worst_response"].get<double>(), 20.0);
  EXPECT_EQ(kj["tasks"][1]["smlp_bound_claimed"], false);
  EXPECT_EQ(kj["tasks"][1]["policy_bound_holds"], true);

  // A claimed bound that the simulated worst passes is not "holding": on the Radeon VII, k = 5
  // slots of 12 CUs, slot 1 split 3 + 9 over two shader engines, runs b's 2.5 ms kernel (12
  // units) in 5 ms against kx's bound of 3. Marked "!", warned, exit 1 (it said holds: true).
  std::string l = "[30";
  for (int k = 2; k <= 30; ++k) l += fmt::format(", {}", 30.0 / k);
  const std::string amd = write("kxamd.json", R"({"format": "gpurt/smlp@1", "time_unit": "ms",
      "platform": "radeon-vii", "tasks": [{"name": "a", "wcet_by_units": )" +
                                                  l + R"(], "period": 24},
      {"name": "b", "wcet_by_units": )" + l + R"(], "period": 24}]})");
  r = cli("simulate-system " + amd + " --policy kx --k 5 --horizon 48 --model ideal");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("3 !"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("task b: simulated worst response 5 ms is above its policy bound 3 ms"),
            std::string::npos)
      << r.err;
  const gpurt::Json aj = gpurt::parse_json(
      cli("simulate-system " + amd + " --policy kx --k 5 --horizon 48 --model ideal --json").out, "stdout");
  EXPECT_EQ(aj["tasks"][1]["policy_bound_claimed"], true);
  EXPECT_EQ(aj["tasks"][1]["policy_bound_holds"], false);
  EXPECT_EQ(aj["tasks"][0]["policy_bound_holds"], true);
}

TEST_F(Cli, BadInputExitsTwoNamesFilePathValueAndPrintsNothingOnStdout) {
  const std::string bad = write("bad.json", R"({"format": "gpurt/smlp@1", "platform": "rtx3060ti",
      "tasks": [{"name": "a", "wcet_by_units": [9101, -5]}]})");
  Outcome r = cli("analyze smlp " + bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "gpurt: error: " + bad + ": tasks[0].wcet_by_units[1] = -5: must be > 0\n");

  r = cli("analyze smlp " + write("broken.json", "{\"format\": "));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("malformed JSON"), std::string::npos);

  r = cli("analyze smlp " + (_dir / "missing.json").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("missing.json: cannot open"), std::string::npos) << r.err;

  r = cli("analyze smlp " + kExample + " --rho 0.5");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");

  EXPECT_EQ(cli("analyze smlp").code, 2);            // missing FILE
  EXPECT_EQ(cli("analyze smlp x --bogus").code, 2);  // unknown option
  EXPECT_EQ(cli("frobnicate").code, 2);              // unknown command
  EXPECT_EQ(cli("").code, 2);                        // no command
}

// A file name, value or command word quoted in an error cannot drive the terminal: its control
// characters (here ESC, which starts colour, cursor and screen-clearing sequences, and a
// right-to-left override) are printed as \xNN escapes, while the message's own newlines stay.
TEST_F(Cli, ErrorsEscapeTheControlCharactersOfWhatTheyQuote) {
  const std::string name = "evil\x1b[2J\xe2\x80\xaename.json";
  const std::string file = write(name, "{\"format\": ");
  Outcome r = cli("analyze smlp '" + file + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\xe2\x80\xae"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("evil\\x1b[2J\\xe2\\x80\\xaename.json: "), std::string::npos) << r.err;
  // An unknown command word and an option's value are quoted the same way.
  r = cli("\"$(printf '\\033[31mNOSUCH')\"");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown command '\\x1b[31mNOSUCH'\nCommands:\n"), std::string::npos) << r.err;
  r = cli("analyze smlp " + kExample + " --rho \"$(printf '1\\007')\"");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find('\x07'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1\\x07"), std::string::npos) << r.err;
}

TEST_F(Cli, HelpAndVersionExitZero) {
  Outcome r = cli("analyze smlp --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Example"), std::string::npos);
  EXPECT_EQ(cli("--version").code, 0);
}

// An unknown command is an error whatever flags follow it (CLI11 alone would print the main help
// for `gpurt NOSUCHCOMMAND --help` and exit 0): exit 2, the list of commands, nothing on stdout.
TEST_F(Cli, UnknownCommandExitsTwoWithTheListOfCommandsEvenWithHelp) {
  for (const std::string args : {"NOSUCHCOMMAND --help", "NOSUCHCOMMAND", "--help NOSUCHCOMMAND"}) {
    SCOPED_TRACE(args);
    const Outcome r = cli(args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("unknown command 'NOSUCHCOMMAND'"), std::string::npos) << r.err;
    for (const char* command : {"analyze", "simulate", "bench", "sweep", "chart", "device"}) {
      EXPECT_NE(r.err.find(std::string("\n  ") + command + " "), std::string::npos) << command << "\n"
                                                                                    << r.err;
    }
  }
  // The same one level down, with that level's commands.
  const Outcome r = cli("analyze NOSUCHCOMMAND --help");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("unknown command 'analyze NOSUCHCOMMAND'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n  smlp "), std::string::npos) << r.err;
  // Known commands' help is unaffected, and so are words that are a command's arguments.
  EXPECT_EQ(cli("simulate --help").code, 0);
  EXPECT_EQ(cli("analyze smlp --help").code, 0);
  EXPECT_EQ(cli("platforms jetson-tx2").code, 0);
}

TEST_F(Cli, Platforms) {
  Outcome r = cli("platforms");
  EXPECT_EQ(r.code, 0);
  for (const char* id : {"gtx1070", "rtx2080ti", "rtx3060ti", "gtx1080ti", "jetson-tx1", "jetson-tx2",
                         "radeon-vii", "h100", "h200"}) {
    EXPECT_NE(r.out.find(id), std::string::npos) << id;
  }
  r = cli("platforms rtx2080ti --json");
  ASSERT_EQ(r.code, 0);
  const gpurt::Json j = gpurt::parse_json(r.out, "stdout");
  EXPECT_EQ(j["sms"], 68);
  EXPECT_EQ(j["partition_unit"], 2);
  // The text form names the fitted model's parameters that are not 0, or "ideal".
  r = cli("platforms radeon-vii");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("wave_release 0.73"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cu_lock_threshold 12"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory_bandwidth 24 (at_start)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("switch_cost"), std::string::npos) << r.out;
  EXPECT_NE(cli("platforms rtx2080ti").out.find("performance model     ideal"), std::string::npos);
  r = cli("platforms rtx9999");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
}

TEST_F(Cli, GenerateUUniFastIsSeededAndChecksArguments) {
  const Outcome a = cli("generate uunifast --n 5 --total 2.5 --max-each 1 --seed 4 --count 3 --json");
  const Outcome b = cli("generate uunifast --n 5 --total 2.5 --max-each 1 --seed 4 --count 3 --json");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const gpurt::Json j = gpurt::parse_json(a.out, "stdout");
  ASSERT_EQ(j.size(), 3u);
  for (const auto& set : j) {
    double sum = 0;
    for (const auto& x : set) sum += x.get<double>();
    EXPECT_NEAR(sum, 2.5, 1e-9);
  }
  EXPECT_EQ(cli("generate uunifast --n 2 --total 3 --max-each 1").code, 2);
  EXPECT_EQ(cli("generate uunifast --n 2 --total -0").out, "0,0\n");  // it printed 0,-0
  EXPECT_EQ(cli("generate uunifast --n 0 --total 1").code, 2);
  // At total = n * max-each the one answer is every value at the cap (no draw ever hits it).
  const Outcome full = cli("generate uunifast --n 3 --total 3 --max-each 1");
  EXPECT_EQ(full.code, 0) << full.err;
  EXPECT_EQ(full.out, "1,1,1\n");
  // Near it almost every draw is discarded: the attempts are bounded by the values drawn (about
  // 10^8: 50,000 draws of 2,000), not a fixed 10^6 draws (52 s here), and the message says so.
  const Outcome near = cli("generate uunifast --n 2000 --total 1500 --max-each 1");
  EXPECT_EQ(near.code, 1);
  EXPECT_NE(near.err.find("accepted none of 50000 draws of 2000 values"), std::string::npos) << near.err;
}

TEST_F(Cli, DeviceReportsAGpuOrWhyNot) {
  const Outcome r = cli("device --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const gpurt::Json j = gpurt::parse_json(r.out, "stdout");
  if (j["devices"].empty()) {
    EXPECT_FALSE(j["reason"].get<std::string>().empty());
    GTEST_SKIP() << "no GPU: " << j["reason"].get<std::string>();
  }
  EXPECT_GT(j["devices"][0]["sms"].get<int>(), 0);
}

TEST_F(Cli, SimulateWritesOneExaminerResultPerBenchmarkAndPictures) {
  const std::string out = (_dir / "out").string();
  const std::string svg = (_dir / "t.svg").string(), perfetto = (_dir / "t.json").string();
  const Outcome r =
      cli("simulate " GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json --platform jetson-tx2 --out " + out +
          " --svg " + svg + " --perfetto " + perfetto);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* f : {"cutahead_1.json", "cutahead_2.json", "cutahead_3.json"}) {
    EXPECT_TRUE(fs::exists(fs::path(out) / f)) << f;
  }
  const gpurt::Json doc = gpurt::load_json_file((fs::path(out) / "cutahead_3.json").string());
  EXPECT_EQ(doc["times"][2]["block_times"], gpurt::Json({1.0, 1.5}));
  EXPECT_NE(gpurt::read_text_file(svg).find("<svg"), std::string::npos);
  EXPECT_NO_THROW(gpurt::load_json_file(perfetto));

  // gpurt plot reads the result files back and draws the same picture.
  const std::string again = (_dir / "again.svg").string();
  const Outcome p = cli("plot " + out + "/cutahead_1.json " + out + "/cutahead_2.json " + out +
                        "/cutahead_3.json --svg " + again);
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(gpurt::read_text_file(again), gpurt::read_text_file(svg));
}

TEST_F(Cli, SimulateBadConfigExitsTwoAndWritesNothing) {
  const std::string out = (_dir / "never").string();
  const std::string bad =
      write("bad.json", R"({"name": "x", "max_iterations": 1, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin.so", "thread_count": 256, "block_count": 1, "additional_info": 1000, "sm_mask": "~0x4"}]})");
  Outcome r = cli("simulate " + bad + " --platform jetson-tx2 --out " + out + " --svg " + out + ".svg");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "gpurt: error: " + bad +
                       ": benchmarks[0].sm_mask = \"~0x4\": names unit 2 but jetson-tx2 has 2 units of 1 "
                       "SM(s) (bits 0..1)\n");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out + ".svg"));
  r = cli("simulate " + bad + " --platform rtx9999 --out " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(fs::exists(out));
  const std::string big =
      write("big.json", R"({"name": "x", "max_iterations": 1, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin.so", "thread_count": 1024, "block_count": 1, "additional_info": 1000}]})");
  r = cli("simulate " + big +
          " --platform " GPURT_SOURCE_DIR "/examples/platforms/pbs-example-2-1.json --out " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("a block of 1024 threads does not fit two-sm-256"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// Hostile configs (issue 16): result files stay inside --out, deep nesting is refused before
// anything walks it, and nothing is written on refusal.
TEST_F(Cli, HostileInputExitsTwoAndWritesNothingOutsideOut) {
  const std::string out = path("out");
  const auto config = [&](const std::string& log_name) {
    return write("cfg.json", R"({"name": "x", "max_iterations": 1, "max_time": 0,
      "comment": "the examiner's multi-line comment idiom:", "comment": "a repeated key",
      "benchmarks": [{"filename": "timer_spin.so", "log_name": ")" +
                                 log_name +
                                 R"(", "thread_count": 32, "block_count": 1, "additional_info": 1000}]})");
  };
  const std::pair<std::string, std::string> refused[] = {
      {"../escaped/x.json", "must stay inside the output folder (a \"..\" part is not allowed)\n"},
      {path("escaped") + "/abs.json",
       "must be a file name inside the output folder, not an absolute path\n"}};
  for (const auto& [log_name, problem] : refused) {
    SCOPED_TRACE(log_name);
    const std::string cfg = config(log_name);
    const Outcome r = cli("simulate " + cfg + " --platform jetson-tx2 --out " + out);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    // The value is shortened in the message when long.
    EXPECT_EQ(r.err.rfind("gpurt: error: " + cfg + ": benchmarks[0].log_name = \"", 0), 0u) << r.err;
    EXPECT_TRUE(r.err.ends_with(problem)) << r.err;
    EXPECT_FALSE(fs::exists(path("escaped")));
    EXPECT_FALSE(fs::exists(out));
  }
  Outcome r = cli("simulate " + config("runs/x.json") + " --platform jetson-tx2 --out " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out + "/runs/x.json"));

  const std::string deep = write(
      "deep.json", R"({"format":"gpurt/smlp@1","platform":"h100","tasks":[{"name":)" +
                       std::string(80000, '[') + std::string(80000, ']') + R"(,"wcet_by_units":[1]}]})");
  r = cli("analyze smlp " + deep);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "gpurt: error: " + deep +
                ": arrays and objects nested more than 64 levels deep at line 1, column 122 (the limit)\n");
  r = cli("simulate " + deep + " --platform jetson-tx2 --out " + path("never"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nested more than 64 levels deep"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("never")));
}

TEST_F(Cli, ChartDrawsACsvAndRejectsBadColumnsWithoutOutput) {
  const std::string csv =
      write("fig.csv", "utilization,policy,ratio\n0.2,a,1\n0.4,a,0.5\n0.2,b,1\n0.4,b,0\n");
  const std::string svg = (_dir / "fig.svg").string();
  Outcome r = cli("chart " + csv + " --x utilization --y ratio --group policy --note simulated --out " + svg);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = gpurt::read_text_file(svg);
  EXPECT_EQ(text.rfind("<svg", 0), 0u);
  EXPECT_NE(text.find(">a</text>"), std::string::npos);
  EXPECT_NE(text.find(">b</text>"), std::string::npos);
  EXPECT_NE(text.find(">simulated</text>"), std::string::npos);

  const std::string bad = (_dir / "bad.svg").string();
  r = cli("chart " + csv + " --x utilization --y ratoi --out " + bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("fig.csv: header = ratoi: no such column (columns: utilization, policy, ratio)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(bad));
  r = cli("chart " + write("text.csv", "u,r\n1,fast\n") + " --x u --y r --out " + bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("row 1.r = fast: not a number"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(bad));

  // --max-points bounds rows x y columns: the 4 rows draw 4 points of one column, 8 of two;
  // a CSV of more rows than the limit is refused as it is read.
  EXPECT_EQ(cli("chart " + csv + " --x utilization --y ratio --max-points 4 --out " + bad).code, 0);
  fs::remove(bad);
  r = cli("chart " + csv + " --x utilization --y ratio,utilization --max-points 7 --out " + bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("fig.csv: 4 rows x 2 y columns is 8 points: --max-points 7 bounds the points drawn"),
            std::string::npos)
      << r.err;
  r = cli("chart " + csv + " --x utilization --y ratio --max-points 3 --out " + bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("fig.csv: has more than 3 rows (at line 5): --max-points 3"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(bad));
}

// A sweep's CSV whose backend column says simulated draws a chart that says so, as the sweep's
// own --plot does: the route the sharded sweeps' error points to (merge, then chart) dropped it.
TEST_F(Cli, ChartOfSimulatedRowsSaysSimulated) {
  const std::string csv = write("sim.csv", "point,backend,tasks,y\n0,simulated,1,2\n1,simulated,2,3\n");
  const std::string svg = path("sim.svg");
  ASSERT_EQ(cli("chart " + csv + " --x tasks --y y --out " + svg).code, 0);
  EXPECT_NE(read("sim.svg").find(">SIMULATED (the CSV's backend column)</text>"), std::string::npos)
      << read("sim.svg");
  ASSERT_EQ(cli("chart " + csv + " --x tasks --y y --note 'seed 1' --out " + svg).code, 0);
  EXPECT_NE(read("sim.svg").find(">SIMULATED; seed 1</text>"), std::string::npos);
  ASSERT_EQ(cli("chart " + csv + " --x tasks --y y --note 'simulated, seed 1' --out " + svg).code, 0);
  EXPECT_NE(read("sim.svg").find(">simulated, seed 1</text>"), std::string::npos);
  const std::string gpu = write("gpu.csv", "point,backend,tasks,y\n0,gpu,1,2\n1,gpu,2,3\n");
  ASSERT_EQ(cli("chart " + gpu + " --x tasks --y y --out " + svg).code, 0);
  EXPECT_EQ(read("sim.svg").find("SIMULATED"), std::string::npos);
}

// Every output is checked before any work (issue 10): chart's --out too, which used to replace
// a FIFO or device node with its SVG and to overwrite its own input; no output may be an input
// or another output of the same run; a symbolic link is written through, not replaced.
TEST_F(Cli, OutputsThatAreInputsDevicesOrEachOtherAreRefusedAndLinksWrittenThrough) {
  const std::string csv = write("fig.csv", "u,r\n1,2\n2,3\n");
  const std::string chart = "chart " + csv + " --x u --y r --out ";
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  for (const std::string& out : {path("fifo"), csv}) {
    const Outcome r = cli(chart + out);
    EXPECT_EQ(r.code, 2) << out << ": " << r.err;
    EXPECT_NE(r.err.find("--out = " + out), std::string::npos) << r.err;
  }
  EXPECT_EQ(read("fig.csv"), "u,r\n1,2\n2,3\n");
  EXPECT_FALSE(fs::is_regular_file(path("fifo")));
  // A link: the file it names gets the SVG and the link stays a link.
  write("target.svg", "old");
  fs::create_symlink(path("target.svg"), path("link.svg"));
  ASSERT_EQ(cli(chart + path("link.svg")).code, 0);
  EXPECT_TRUE(fs::is_symlink(path("link.svg")));
  EXPECT_EQ(read("target.svg").rfind("<svg", 0), 0u);
  fs::create_symlink(path("fifo"), path("to-fifo.svg"));
  EXPECT_EQ(cli(chart + path("to-fifo.svg")).code, 2);
  // convert and report refuse to overwrite their input; report's HTML stays out of --measured.
  const std::string sys =
      write("s.json", gpurt::read_text_file(GPURT_SOURCE_DIR "/examples/system/four-identical.json"));
  Outcome r = cli("convert " + sys + " --to system --out " + sys);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("is also an input"), std::string::npos) << r.err;
  r = cli("report " + sys + " --html " + sys);
  EXPECT_EQ(r.code, 2) << r.err;
  fs::create_directories(path("measured"));
  r = cli("report " + sys + " --measured " + path("measured") + " --html " + path("measured/r.html"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("lies in the input folder"), std::string::npos) << r.err;
  r = cli("report " + sys + " --measured " + path("measured") + "/ --html " + path("measured/r.html"));
  EXPECT_EQ(r.code, 2) << r.err;  // the folder written with a trailing slash
  EXPECT_FALSE(fs::exists(path("measured/r.html")));
  EXPECT_EQ(read("s.json"), gpurt::read_text_file(GPURT_SOURCE_DIR "/examples/system/four-identical.json"));
}

TEST_F(Cli, PlotRefusesOneFileForTwoOutputsAndAnInputAsOutput) {
  ASSERT_EQ(cli("simulate " + std::string(GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json") +
                " --platform jetson-tx2 --out " + path("r"))
                .code,
            0);
  const std::string results = path("r") + "/*.json";
  Outcome r = cli("plot " + results + " --svg " + path("same.svg") + " --cdf " + path("same.svg"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--cdf = " + path("same.svg") + ": is also the file of --svg"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(path("same.svg")));
  std::string first;
  for (const auto& e : fs::directory_iterator(path("r")))
    if (e.path().extension() == ".json") first = e.path().string();
  ASSERT_FALSE(first.empty());
  const std::string before = gpurt::read_text_file(first);
  r = cli("plot " + results + " --svg " + first);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(gpurt::read_text_file(first), before);
}

// Inputs are read up to a limit (256 MiB; GPURT_MAX_INPUT_BYTES), so /dev/zero or a huge file
// is refused instead of filling the memory; a failed write to standard output is exit 1.
TEST_F(Cli, InputsHaveASizeLimitAndAFailedStdoutIsAFailure) {
  Outcome r = cli("analyze smlp /dev/zero");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("/dev/zero: is larger than 268435456 bytes"), std::string::npos) << r.err;
  r = cli("analyze smlp " + kExample);
  EXPECT_EQ(r.code, 0);
  const std::string limited = "GPURT_MAX_INPUT_BYTES=100 " + std::string(GPURT_CLI) + " analyze smlp " +
                              kExample + " >" + path("o") + " 2>" + path("e");
  EXPECT_EQ(WEXITSTATUS(std::system(limited.c_str())), 2);
  EXPECT_NE(read("e").find("is larger than 100 bytes (GPURT_MAX_INPUT_BYTES raises the limit)"),
            std::string::npos)
      << read("e");
  EXPECT_EQ(read("o"), "");
  // The limit is inclusive: a file of exactly that many bytes is read, one byte less refuses it.
  const auto size = std::filesystem::file_size(kExample);
  for (const auto& [limit, code] : {std::pair{size, 0}, std::pair{size - 1, 2}}) {
    const std::string exact = "GPURT_MAX_INPUT_BYTES=" + std::to_string(limit) + " " +
                              std::string(GPURT_CLI) + " analyze smlp " + kExample + " >" + path("o") +
                              " 2>" + path("e");
    EXPECT_EQ(WEXITSTATUS(std::system(exact.c_str())), code) << limit << ": " << read("e");
  }
  // The tree a text makes is bounded too (2 GiB; GPURT_MAX_JSON_TREE_BYTES): 904 bytes of
  // "[[],[],..." make 302 arrays, 302 x (32 + 64) = 28,992 bytes. At that limit the JSON is read
  // (and refused as no smlp file); one byte below, refused before its tree is built.
  std::string empties = "[";
  for (int i = 0; i < 300; ++i) empties += "[],";
  write("tree.json", empties + "[]]");
  for (const int limit : {28992, 28991}) {
    const std::string tree = "GPURT_MAX_JSON_TREE_BYTES=" + std::to_string(limit) + " " +
                             std::string(GPURT_CLI) + " analyze smlp " + path("tree.json") + " >" +
                             path("o") + " 2>" + path("e");
    EXPECT_EQ(WEXITSTATUS(std::system(tree.c_str())), 2);
    EXPECT_EQ(
        read("e").find(fmt::format("tree.json: would take more than {} bytes of memory as a JSON tree "
                                   "(short values take many times their text; GPURT_MAX_JSON_TREE_BYTES "
                                   "raises the limit)",
                                   limit)) != std::string::npos,
        limit == 28991)
        << read("e");
    EXPECT_EQ(read("o"), "");
  }
  // A generated set larger than the limit is refused, nothing written: 1000 tasks of 1000
  // segments made a 333 MB file every command refused to read. At the limit it is written.
  const Outcome g = cli("generate rtgpu --utilization 1 --seed 3");
  ASSERT_EQ(g.code, 0) << g.err;
  for (const auto& [limit, code] : {std::pair{g.out.size(), 0}, std::pair{g.out.size() - 1, 2}}) {
    const std::string gen = "GPURT_MAX_INPUT_BYTES=" + std::to_string(limit) + " " + std::string(GPURT_CLI) +
                            " generate rtgpu --utilization 1 --seed 3 >" + path("o") + " 2>" + path("e");
    EXPECT_EQ(WEXITSTATUS(std::system(gen.c_str())), code) << limit << ": " << read("e");
    EXPECT_EQ(read("o"), code == 0 ? g.out : "") << limit;
    if (code == 2) {
      EXPECT_NE(read("e").find(fmt::format("--tasks = 5: with --subtasks 5 the set is {} bytes, above the {} "
                                           "bytes gpurt reads (GPURT_MAX_INPUT_BYTES raises the limit)",
                                           g.out.size(), limit)),
                std::string::npos)
          << read("e");
    }
  }
  for (const char* args : {"platforms", "--help", "analyze smlp --help", "--version"}) {
    const std::string full = std::string(GPURT_CLI) + " " + args + " >/dev/full 2>" + path("e");
    EXPECT_EQ(WEXITSTATUS(std::system(full.c_str())), 1) << args;
    EXPECT_EQ(read("e"), "gpurt: error: cannot write to standard output\n") << args;
  }
}

// A named FIFO that nothing writes to is refused after 10 s (kFifoWaitSeconds), exit 2 and
// nothing written (opening one waited for a writer for ever until 2026-11-28, in simulate, bench,
// report and others); an anonymous pipe (/dev/stdin, `<(command)`) is read as a file is, however
// slow its writer (here 11 s, run beside the FIFO's 10), and a FIFO whose writer comes later is
// waited for (SweepCli.RowsFromAPipeAreNeverResumed).
TEST_F(Cli, AFifoNothingWritesIsRefusedAndAPipeIsRead) {
  ASSERT_EQ(::mkfifo(path("fifo.json").c_str(), 0600), 0);
  const std::string gpurt = GPURT_CLI;
  const std::string slow_pipe = "( (sleep 11; cat " GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json) | " +
                                gpurt + " simulate /dev/stdin --platform jetson-tx2 --out " + path("p") +
                                " >" + path("out1") + " 2>" + path("err1") + "; echo $? >" + path("rc1") +
                                ") & ";
  const std::string fifo = gpurt + " simulate " + path("fifo.json") + " --platform h200 --out " + path("o") +
                           " >" + path("out2") + " 2>" + path("err2") + "; echo $? >" + path("rc2") +
                           "; wait";
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(std::system(("bash -c '" + slow_pipe + fifo + "'").c_str()), 0);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::seconds(11));
  EXPECT_EQ(read("rc2"), "2\n");
  EXPECT_NE(read("err2").find("fifo.json: is a FIFO (named pipe) that nothing wrote to within 10 s"),
            std::string::npos)
      << read("err2");
  EXPECT_FALSE(std::filesystem::exists(path("o")));
  EXPECT_EQ(read("rc1"), "0\n") << read("err1");
  EXPECT_TRUE(std::filesystem::exists(path("p")));

  // A platform file is read as any input: from a pipe too (it was refused as "not a regular
  // file"); the piped copy is renamed, so the run names what it read.
  const std::string piped = "bash -c '" + gpurt +
                            " simulate " GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json --platform <(" +
                            gpurt + " platforms jetson-tx2 --json | sed s/jetson-tx2/piped-tx2/) --out " +
                            path("q") + " --json >" + path("out3") + " 2>" + path("err3") + "'";
  ASSERT_EQ(std::system(piped.c_str()), 0) << read("err3");
  EXPECT_EQ(gpurt::parse_json(read("out3"), "out3")["platform"], "piped-tx2") << read("out3");
  // plot --compare applies it to both sides: one read (a second read of the pipe found it empty).
  const std::string compare = "bash -c '" + gpurt + " plot --compare " + path("q") + " " + path("q") +
                              " --svg " + path("c.svg") + " --platform <(" + gpurt +
                              " platforms jetson-tx2 --json) 2>" + path("err4") + "'";
  ASSERT_EQ(std::system(compare.c_str()), 0) << read("err4");
  EXPECT_TRUE(std::filesystem::exists(path("c.svg")));
}

// Every command's --help shows an example (README: "Every command has `--help` with an
// example"): each leaf of the command tree, found by walking the "Subcommands:" lists.
TEST_F(Cli, EveryCommandsHelpHasAnExample) {
  std::vector<std::string> pending = {""}, leaves;
  while (!pending.empty()) {
    const std::string command = pending.back();
    pending.pop_back();
    const Outcome help = cli(command + " --help");
    ASSERT_EQ(help.code, 0) << command << help.err;
    const std::size_t list = help.out.find("\nSubcommands:\n");
    if (list == std::string::npos) {
      leaves.push_back(command);
      EXPECT_NE(help.out.find("Example"), std::string::npos)
          << "gpurt" << command << " --help has no example";
      continue;
    }
    std::istringstream lines(help.out.substr(list + 14));
    for (std::string line; std::getline(lines, line) && line.starts_with("  ");) {
      std::istringstream words(line);
      std::string name;
      words >> name;
      pending.push_back(command + " " + name);
    }
  }
  EXPECT_GE(leaves.size(), 25U);  // the walk found the tree (platforms ... convert, sweep's five)
}

// ---- Issue 16: outputs are checked before anything runs and written all or none ----

namespace {
const std::string kCut = GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json";
}  // namespace

TEST_F(Cli, SimulateWithAnUnwritableSvgLeavesNoResults) {
  const Outcome r =
      cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("R") + " --svg /nonexistent/dir/x.svg");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--svg = /nonexistent/dir/x.svg: folder /nonexistent/dir does not exist"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(path("R")));
}

TEST_F(Cli, SimulateWithAPerfettoFolderLeavesNoResults) {
  fs::create_directories(path("adir"));
  const Outcome r =
      cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("R") + " --perfetto " + path("adir"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--perfetto = " + path("adir") + ": is a folder"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("R")));
}

// Two outputs of one run naming one file, an output onto an input (the config, the platform
// file) and a result file that is a folder are refused before the run (exit 2), and nothing is
// written or replaced: neither the outputs nor the inputs.
TEST_F(Cli, SimulateAndBenchRefuseOutputsOntoEachOtherOrOntoTheirInputs) {
  const std::string config = write("c.json", gpurt::read_text_file(kCut));
  const std::string run = "simulate " + config + " --platform jetson-tx2 --out " + path("R");
  const auto refused = [&](const std::string& command, const std::string& message) {
    const Outcome r = cli(command);
    EXPECT_EQ(r.code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << command << ": " << r.err;
  };
  refused(run + " --svg " + path("p.svg") + " --perfetto " + path("p.svg"),
          "--perfetto = " + path("p.svg") + ": is also the file of --svg");
  EXPECT_FALSE(fs::exists(path("p.svg")));
  EXPECT_FALSE(fs::exists(path("R")));
  fs::create_directories(path("R"));
  refused(run + " --svg " + path("R/cutahead_1.json"),
          "--svg = " + path("R/cutahead_1.json") +
              ": is also the file of --out (the result file cutahead_1.json)");
  refused("bench " + config + " --backend sim --platform jetson-tx2 --out " + path("R") + " --svg " +
              path("R/cutahead_2.json"),
          "is also the file of --out (the result file cutahead_2.json)");
  EXPECT_TRUE(fs::is_empty(path("R")));
  refused(run + " --svg " + config, "--svg = " + config + ": is also an input");
  // The config in the output folder, under the name of a result file.
  const std::string inside = write("R/cutahead_1.json", gpurt::read_text_file(kCut));
  refused("simulate " + inside + " --platform jetson-tx2 --out " + path("R"),
          "--out (the result file cutahead_1.json) = " + inside + ": is also an input");
  EXPECT_EQ(read("R/cutahead_1.json"), gpurt::read_text_file(kCut));
  fs::remove(inside);
  // The platform file.
  const Outcome shown = cli("platforms jetson-tx2 --json");
  ASSERT_EQ(shown.code, 0) << shown.err;
  const std::string platform = write("p.json", shown.out);
  refused("simulate " + config + " --platform " + path("p.json") + " --out " + path("R") + " --perfetto " +
              path("p.json"),
          "--perfetto = " + path("p.json") + ": is also an input");
  EXPECT_EQ(read("p.json"), shown.out);
  // A result file that is a folder would fail its rename after the others landed.
  fs::create_directories(path("R/cutahead_2.json"));
  refused(run, "--out (the result file cutahead_2.json) = " + path("R/cutahead_2.json") + ": is a folder");
  EXPECT_FALSE(fs::exists(path("R/cutahead_1.json")));
  EXPECT_EQ(config, path("c.json"));
  EXPECT_EQ(read("c.json"), gpurt::read_text_file(kCut));
}

// The same for the other commands with more than one output or a file input: refused before
// any work, with the option named, and the input left as it was.
TEST_F(Cli, SignalMergeAndProfileRefuseOutputsOntoEachOtherOrOntoTheirInputs) {
  Outcome r = cli("generate signal --samples 1000 --out " + path("s.cf32") + " --meta " + path("s.cf32"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--meta = " + path("s.cf32") + ": is also the file of --out"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(path("s.cf32")));
  const std::string shard = write("shard.csv", "point,points\n0,1\n");
  r = cli("sweep merge " + shard + " --out " + shard);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--out = " + shard + ": is also an input"), std::string::npos) << r.err;
  EXPECT_EQ(read("shard.csv"), "point,points\n0,1\n");
  const Outcome shown = cli("platforms rtx3060ti --json");
  ASSERT_EQ(shown.code, 0) << shown.err;
  const std::string platform = write("p.json", shown.out);
  r = cli("fft profile --platform " + platform + " --sizes 10 --out " + platform);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--out = " + platform + ": is also an input"), std::string::npos) << r.err;
  EXPECT_EQ(read("p.json"), shown.out);
}

// Output paths are compared as the files they name, however they are spelled: a bare name, a
// "./" name and the absolute path of a file that does not exist yet are one file, and "." as an
// input folder holds a bare output name. And the sweeps and plot check their outputs against
// the config and platform files they read.
TEST_F(Cli, OutputsSpelledDifferentlyAreOneFileAndSweepsKeepOffTheirInputs) {
  // Runs gpurt in the test's folder, so that bare names are relative to it.
  const auto here = [&](const std::string& where, const std::string& args) {
    const std::string command = "cd " + path(where) + " && " + std::string(GPURT_CLI) + " " + args + " >" +
                                path("stdout") + " 2>" + path("stderr");
    const int status = std::system(command.c_str());
    return std::pair{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read("stderr")};
  };
  const std::string sweep =
      "sweep rtgpu --sets 2 --u-min 0.5 --u-max 1.0 --u-step 0.5 --tasks 2 --subtasks 2 "
      "--quiet --out b.csv --plot ";
  for (const std::string& plot : {std::string("./b.csv"), path("b.csv")}) {
    const auto [code, err] = here("", sweep + plot);
    EXPECT_EQ(code, 2) << plot << ": " << err;
    EXPECT_NE(err.find("--plot = " + plot + ": is also the file of --out"), std::string::npos) << err;
  }
  EXPECT_FALSE(fs::exists(path("b.csv")));
  auto [code, err] = here("", "generate signal --samples 100 --out sg.bin --meta ./sg.bin");
  EXPECT_EQ(code, 2) << err;
  EXPECT_FALSE(fs::exists(path("sg.bin")));
  // "." as the compared folder, the picture a bare name in it.
  ASSERT_EQ(cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("res")).code, 0);
  ASSERT_EQ(cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("res2")).code, 0);
  std::tie(code, err) = here("res", "plot --compare . ../res2 --svg c.svg --platform jetson-tx2");
  EXPECT_EQ(code, 2) << err;
  EXPECT_NE(err.find("--svg = c.svg: lies in the input folder ."), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("res/c.svg")));
  // The config and the platform file of a sweep, and plot's platform file, stay as they were.
  const std::string config = GPURT_SOURCE_DIR "/examples/amd/isolated_mm1024.json";
  write("cfg.json", gpurt::read_text_file(config));
  std::tie(code, err) = here(
      "", "sweep cu-masks cfg.json --sizes 1,2 --layouts se-packed --quiet --out cu.csv --plot ./cfg.json");
  EXPECT_EQ(code, 2) << err;
  EXPECT_NE(err.find("--plot = ./cfg.json: is also an input"), std::string::npos) << err;
  EXPECT_EQ(read("cfg.json"), gpurt::read_text_file(config));
  EXPECT_FALSE(fs::exists(path("cu.csv")));
  const Outcome shown = cli("platforms jetson-tx2 --json");
  ASSERT_EQ(shown.code, 0) << shown.err;
  write("tx2.json", shown.out);
  std::tie(code, err) = here("", "plot res/cutahead_1.json --svg tx2.json --platform tx2.json");
  EXPECT_EQ(code, 2) << err;
  EXPECT_NE(err.find("--svg = tx2.json: is also an input"), std::string::npos) << err;
  EXPECT_EQ(read("tx2.json"), shown.out);
}

// simulate-rtgpu on a preset with a fitted model: kernels never run below Lemma 5.1's best case
// (RtgpuSim.CalibratedKernelsNeverRunBelowTheLowerBound), so L stays within its 14.1 ms bound,
// every bound shown holds, and the exit status is 0 (a task above its bound is an error, exit 1).
TEST_F(Cli, SimulateRtgpuChecksEveryBoundItShows) {
  const std::string f = write("cal.json", R"({"format": "gpurt/rtgpu@1", "time_unit": "ms",
      "platform": {"preset": "rtx3060ti", "sms": 2}, "tasks": [
        {"name": "H", "period": 100, "priority": 1, "cpu": [[5, 5], [5, 5], [0.1, 0.1]],
         "copy": [[0, 0], [0, 0], [0, 0], [0, 0]],
         "gpu": [{"work": [20, 20], "overhead": 0, "alpha": 1}, {"work": [20, 20], "overhead": 0, "alpha": 1}]},
        {"name": "L", "period": 200, "priority": 2, "cpu": [[9, 9]], "copy": [], "gpu": []}]})");
  const Outcome r = cli("simulate-rtgpu " + f + " --jobs 5 --json");
  EXPECT_EQ(r.code, 0) << r.err;
  const gpurt::Json j = gpurt::parse_json(r.out, "stdout");
  for (const auto& t : j["tasks"]) EXPECT_EQ(t["bound_holds"], true) << t.dump();
  EXPECT_LE(j["tasks"][1]["max_response"].get<double>(), 14.1);
}

// Job limits bound the whole run, not one task's share: simulate-rtgpu --jobs and analyze fifo
// --simulate are per task, so a file of 1,000 tasks would otherwise run a thousand times longer
// (and fifo keeps every response time) than the limit suggests.
TEST_F(Cli, JobLimitsBoundTheTasksTimesTheJobsPerTask) {
  const std::string rt = GPURT_SOURCE_DIR "/examples/rtgpu/sim-two-tasks.json";
  Outcome r = cli("simulate-rtgpu " + rt + " --jobs 60 --max-jobs 100");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--jobs = 60: releases 120 jobs in all (2 tasks), more than --max-jobs 100"),
            std::string::npos)
      << r.err;
  r = cli("simulate-rtgpu " + rt + " --jobs 50 --max-jobs 100");
  EXPECT_NE(r.code, 2) << r.err;
  const std::string fifo = GPURT_SOURCE_DIR "/examples/fifo/example2.json";
  r = cli("analyze fifo " + fifo + " --simulate 30 --max-jobs 100");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--simulate = 30: simulates 120 jobs in all (4 tasks), more than --max-jobs 100"),
            std::string::npos)
      << r.err;
  r = cli("analyze fifo " + fifo + " --simulate 25 --max-jobs 100");
  EXPECT_EQ(r.code, 0) << r.err;
  // Blocks too: example 2's grids sum to 1 + 7 + 1 + 5 = 14 blocks a round of jobs, and the
  // simulator places every one (a grid of 2^28 blocks ran out of memory, exit 1).
  r = cli("analyze fifo " + fifo + " --simulate 10 --max-blocks 139");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(
      r.err.find("--simulate = 10: simulates 140 blocks in all (jobs x grid), more than --max-blocks 139"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(cli("analyze fifo " + fifo + " --simulate 10 --max-blocks 140").code, 0);
  const std::string huge = write("huge.json", R"({"format": "gpurt/fifo@1", "time_unit": "ns",
      "gpu_threads": 1073741824, "tasks": [{"name": "a", "wcet": 1e15, "period": 1e15, "grid": 268435456,
      "block": 1024}]})");
  r = cli("analyze fifo " + huge + " --simulate 1");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("more than --max-blocks 16777216"), std::string::npos) << r.err;
}

// FIFO files: b_lim above m is refused, not lowered; with b_max = 1 Theorem 1 does not apply,
// and the text says so instead of claiming U_sum < m - b_max + 1 at U_sum = m.
TEST_F(Cli, AnalyzeFifoRefusesABlockLimitAboveTheGpuAndSaysWhenTheoremOneDoesNotApply) {
  Outcome r = cli("analyze fifo " + write("b.json", R"({"format": "gpurt/fifo@1", "gpu_threads": 4,
      "max_block": 8, "tasks": [{"name": "a", "wcet": 8, "period": 2, "grid": 4, "block": 1}]})"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("max_block = 8: must be <= gpu_threads = 4"), std::string::npos) << r.err;
  const std::string one = write("one.json", R"({"format": "gpurt/fifo@1", "gpu_threads": 4,
      "tasks": [{"name": "a", "wcet": 8, "period": 2, "grid": 4, "block": 1}]})");
  r = cli("analyze fifo " + one + " --check");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("U_sum = m with b_max = 1: outside Theorem 1"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("U_sum < m"), std::string::npos) << r.out;
}

// "-" as the config is standard input, as in the examiner: the same results as from the file.
TEST_F(Cli, SimulateReadsTheConfigFromStandardInputAsDash) {
  ASSERT_EQ(cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("file")).code, 0);
  const Outcome r = cli("simulate - --platform jetson-tx2 --out " + path("stdin") + " < " + kCut);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"cutahead_1.json", "cutahead_2.json", "cutahead_3.json"})
    EXPECT_EQ(read(std::string("stdin/") + name), read(std::string("file/") + name)) << name;
  const Outcome empty = cli("simulate - --platform jetson-tx2 --out " + path("none") + " < /dev/null");
  EXPECT_EQ(empty.code, 2) << empty.err;
  EXPECT_EQ(empty.err.rfind("gpurt: error: -: ", 0), 0u) << empty.err;
}

// Pictures of huge traces are bounded (issue 16): cut_ahead has 10 blocks; with at most 9 drawn,
// the run stops with exit 1 naming the option and writes nothing, not even the result files.
TEST_F(Cli, SimulateRefusesToDrawMoreBlocksThanMaxDrawnBlocks) {
  const Outcome r = cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("R") + " --svg " +
                        path("t.svg") + " --max-drawn-blocks 9");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("the trace has 10 blocks, more than --max-drawn-blocks (9)"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(path("R")));
  EXPECT_FALSE(fs::exists(path("t.svg")));
  EXPECT_EQ(cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("R") + " --perfetto " +
                path("t.json") + " --max-drawn-blocks 10")
                .code,
            0);
  EXPECT_EQ(
      cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("R2") + " --max-drawn-blocks 0").code,
      2);
}

TEST_F(Cli, SimulateOutNamingAFileIsBadInput) {
  write("afile", "x");
  const Outcome r = cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("afile"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err, "gpurt: error: command line: --out = " + path("afile") + ": exists and is not a folder\n");
  EXPECT_EQ(read("afile"), "x");
}

// A picture named as the result folder that --out will create (or a folder above it) is refused
// before the run (it ran the whole simulation, then failed with exit 1 and an empty folder), and a
// dangling symbolic link as --out is bad input, not a failure to create the folder.
TEST_F(Cli, OutputsThatTheResultFolderWouldSwallowAreRefusedFirst) {
  for (const std::string& args :
       {"simulate " + kCut + " --platform jetson-tx2 --out " + path("o") + " --svg " + path("o"),
        "simulate " + kCut + " --platform jetson-tx2 --out " + path("p/sub") + " --perfetto " + path("p"),
        "bench " + kCut + " --backend sim --platform jetson-tx2 --out " + path("o") + " --svg " +
            path("o")}) {
    const Outcome r = cli(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("or one above it; give a file name"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(path("o")));
  EXPECT_FALSE(fs::exists(path("p")));
  fs::create_symlink(path("nowhere"), path("dangling"));
  const Outcome r = cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("dangling"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--out = " + path("dangling") + ": is a symbolic link that leads to no folder"),
            std::string::npos)
      << r.err;
}

TEST_F(Cli, BenchWithAnUnwritableSvgLeavesNoResults) {
  const Outcome r = cli("bench " + kCut + " --backend sim --platform jetson-tx2 --out " + path("R") +
                        " --svg /nonexistent/x.svg");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_FALSE(fs::exists(path("R")));
}

TEST_F(Cli, BenchSimTakesModelAndTheGpuBackendRefusesIt) {
  // Isolated MM1024 on the Radeon VII preset: its examples' block times are fitted with the
  // preset's wave_release, so the ideal model (whole-block frees) runs it slower.
  const std::string cfg = std::string(GPURT_SOURCE_DIR) + "/examples/amd/isolated_mm1024.json";
  const std::string args = "bench " + cfg + " --platform radeon-vii --json --out ";
  const auto [c, i] = json_under_both_models(args + path("C"), args + path("I") + " --model ideal");
  EXPECT_GT(i.at("instances").at(0).at("mean_execute_s").get<double>(),
            c.at("instances").at(0).at("mean_execute_s").get<double>());
  const Outcome gpu =
      cli("bench " + cfg + " --backend gpu --platform radeon-vii --model ideal --out " + path("G"));
  EXPECT_EQ(gpu.code, 2);
  EXPECT_NE(gpu.err.find("--model"), std::string::npos) << gpu.err;
  EXPECT_FALSE(fs::exists(path("G")));
}

TEST_F(Cli, PlotWithAnUnwritableCdfLeavesNoSvg) {
  ASSERT_EQ(cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("R")).code, 0);
  std::string files;
  for (const auto& e : fs::directory_iterator(path("R"))) files += " " + e.path().string();
  const Outcome r = cli("plot" + files + " --svg " + path("ok.svg") + " --cdf /nonexistent/c.svg");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--cdf"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("ok.svg")));
  ASSERT_EQ(cli("plot" + files + " --svg " + path("ok.svg") + " --cdf " + path("c.svg")).code, 0);
  EXPECT_TRUE(fs::exists(path("ok.svg")));
}

TEST_F(Cli, GenerateSignalWithAnUnwritableMetaLeavesNoSamples) {
  const Outcome r =
      cli("generate signal --samples 64 --out " + path("x.cf32") + " --meta /nonexistent/x.json");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--meta"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("x.cf32")));
}

TEST_F(Cli, WriteFilesAtomicallyWritesAllOrNone) {
  const std::string ok = path("a.txt"), bad = path("missing/b.txt");
  EXPECT_THROW(gpurt::write_files_atomically({{ok, "a"}, {bad, "b"}}), gpurt::Error);
  EXPECT_FALSE(fs::exists(ok));
  for (const auto& e : fs::directory_iterator(_dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
  gpurt::write_files_atomically({{ok, "a"}, {path("c.txt"), "c"}});
  EXPECT_EQ(read("a.txt"), "a");
  EXPECT_EQ(read("c.txt"), "c");
  // One file twice (by another spelling), or a folder last: refused before anything is replaced.
  EXPECT_THROW(gpurt::write_files_atomically({{ok, "A"}, {path("d.txt"), "d"}, {path("./a.txt"), "B"}}),
               gpurt::Error);
  fs::create_directories(path("adir"));
  EXPECT_THROW(gpurt::write_files_atomically({{ok, "A"}, {path("d.txt"), "d"}, {path("adir"), "x"}}),
               gpurt::Error);
  EXPECT_EQ(read("a.txt"), "a");
  EXPECT_FALSE(fs::exists(path("d.txt")));
  EXPECT_THROW(gpurt::check_output_file(path("missing/x"), "--x"), gpurt::InputError);
  EXPECT_THROW(gpurt::check_output_file(path(""), "--x"), gpurt::InputError);  // the folder itself
  EXPECT_NO_THROW(gpurt::check_output_file(path("new.txt"), "--x"));
  // A name the atomic write's temporary file (".tmp.PID" beside it) could not have.
  EXPECT_NO_THROW(gpurt::check_output_file(path(std::string(240, 'n')), "--x"));
  EXPECT_THROW(gpurt::check_output_file(path(std::string(241, 'n')), "--x"), gpurt::InputError);
  EXPECT_THROW(gpurt::check_output_dir(ok, "--out"), gpurt::InputError);
  EXPECT_NO_THROW(gpurt::check_output_dir(path("new/deeper"), "--out"));
}

// A result file named by a config's log_name is an output like any other: a name the atomic
// write's temporary file could not have beside it is refused before the run (exit 2, no folder).
TEST_F(Cli, ALogNameTooLongForAnOutputIsRefusedBeforeTheRun) {
  const std::string config = write_edited("long.json", GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json",
                                          "cutahead_1.json", std::string(236, 'c') + ".json");
  const Outcome r = cli("simulate " + config + " --platform jetson-tx2 --out " + path("res"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("long.json: benchmarks[0].log_name = "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("has a file name of 241 bytes, more than the 240 an output file may have"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(path("res")));
  // Sub-folders: the whole path at most 4095 bytes (17 folders of 250), and a folder on the way
  // that is a file is refused too, both before the run and with nothing created.
  std::string deep;
  for (int i = 0; i < 17; ++i) deep += std::string(250, 'd') + "/";
  const std::string far = write_edited("deep.json", GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json",
                                       "cutahead_1.json", deep + "a.json");
  const Outcome d = cli("simulate " + far + " --platform jetson-tx2 --out " + path("res"));
  EXPECT_EQ(d.code, 2) << d.err;
  EXPECT_NE(d.err.find("bytes long; at most 4083 (a path is at most 4095 with the temporary"),
            std::string::npos)
      << d.err;
  EXPECT_FALSE(fs::exists(path("res")));
  // A folder name of 256 bytes, in a path well within the limit (the config loader refuses such a
  // log_name part; a result folder --out may still name one).
  const Outcome w =
      cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("res/" + std::string(256, 'w')));
  EXPECT_EQ(w.code, 2) << w.err;
  EXPECT_NE(w.err.find("has a folder name of 256 bytes; at most 255"), std::string::npos) << w.err;
  EXPECT_FALSE(fs::exists(path("res")));
  fs::create_directories(path("res"));
  write("res/x", "a file");
  const std::string in_file =
      write_edited("x.json", GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json", "cutahead_1.json", "x/a.json");
  const Outcome f = cli("simulate " + in_file + " --platform jetson-tx2 --out " + path("res"));
  EXPECT_EQ(f.code, 2) << f.err;
  EXPECT_NE(f.err.find(path("res/x") + " is not a folder to put it in"), std::string::npos) << f.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(path("res")), fs::directory_iterator()), 1);
  // A link on the way that leads nowhere would be neither followed nor replaced: refused too.
  fs::remove(path("res/x"));
  fs::create_directory_symlink(path("nowhere"), path("res/x"));
  const Outcome l = cli("simulate " + in_file + " --platform jetson-tx2 --out " + path("res"));
  EXPECT_EQ(l.code, 2) << l.err;
  EXPECT_NE(l.err.find(path("res/x") + " is a link that leads nowhere"), std::string::npos) << l.err;
  EXPECT_FALSE(fs::exists(path("nowhere")));
  // A link inside --out that leads out of it, at the file or at a folder on its way, would write
  // there (a stale or planted link overwrote a file outside --out): refused, nothing written.
  fs::remove(path("res/x"));
  fs::create_directories(path("outside"));
  write("outside/a.json", "VICTIM");
  fs::create_directory_symlink(path("outside"), path("res/x"));
  const Outcome away = cli("simulate " + in_file + " --platform jetson-tx2 --out " + path("res"));
  EXPECT_EQ(away.code, 2) << away.err;
  EXPECT_NE(away.err.find("leads out of the result folder " + path("res") + " through a link (to " +
                          path("outside/a.json") + ")"),
            std::string::npos)
      << away.err;
  fs::remove(path("res/x"));
  fs::create_directories(path("res/x"));
  fs::create_symlink(path("outside/a.json"), path("res/x/a.json"));
  EXPECT_EQ(cli("simulate " + in_file + " --platform jetson-tx2 --out " + path("res")).code, 2);
  EXPECT_EQ(read("outside/a.json"), "VICTIM");
  EXPECT_EQ(std::distance(fs::directory_iterator(path("outside")), fs::directory_iterator()), 1);
  // A link inside --out to a file inside it is written through, as before.
  fs::remove(path("res/x/a.json"));
  write("res/x/target.json", "old");
  fs::create_symlink("target.json", path("res/x/a.json"));
  EXPECT_EQ(cli("simulate " + in_file + " --platform jetson-tx2 --out " + path("res")).code, 0);
  EXPECT_TRUE(fs::is_symlink(path("res/x/a.json")));
  EXPECT_NE(read("res/x/target.json"), "old");
}

// The temporary file of an atomic write is made anew and never through a link: a link planted at
// its name (PATH.tmp.PID) sent the write to the file it pointed at.
TEST_F(Cli, AnAtomicWriteNeverFollowsALinkAtItsTemporaryName) {
  write("victim.txt", "VICTIM");
  fs::create_symlink(path("victim.txt"), path("r.json.tmp." + std::to_string(::getpid())));
  gpurt::write_file_atomically(path("r.json"), "result");
  EXPECT_EQ(read("victim.txt"), "VICTIM");
  EXPECT_EQ(read("r.json"), "result");
  EXPECT_FALSE(fs::is_symlink(path("r.json")));
  EXPECT_FALSE(fs::exists(fs::symlink_status(path("r.json.tmp." + std::to_string(::getpid())))));
}

// All or none: a write that fails (here a file /proc will not take, as a full disk) removes the
// folders it made for the others (an empty res/deep/er was left behind), and nothing else.
TEST_F(Cli, AFailedWriteRemovesTheFoldersItMade) {
  fs::create_directories(path("res/kept"));
  const std::vector<gpurt::OutputFile> files{{path("res/deep/er/a.json"), "a"},
                                             {"/proc/gpurt-no-such-file.json", "b"}};
  EXPECT_THROW(gpurt::write_outputs(files, path("res/new")), gpurt::Error);
  EXPECT_FALSE(fs::exists(path("res/deep")));
  EXPECT_FALSE(fs::exists(path("res/new")));
  EXPECT_TRUE(fs::is_directory(path("res/kept")));
  EXPECT_FALSE(fs::exists("/proc/gpurt-no-such-file.json"));
}

TEST_F(Cli, PlatformThatIsMissingOrAFolderIsNamed) {
  fs::create_directories(path("pdir"));
  for (const std::string& p : {path("pdir"), path("nope.json")}) {
    const Outcome r = cli("simulate " + kCut + " --platform " + p + " --out " + path("R"));
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("--platform = " + p + ": "), std::string::npos) << r.err;
  }
}

// ---- Issue 16: numbers that are not finite or out of range are bad input (exit 2) ----

TEST_F(Cli, NonFiniteOptionsAreBadInputWithAShortMessage) {
  const std::string sys = GPURT_SOURCE_DIR "/examples/system/four-identical.json";
  const std::string rt = GPURT_SOURCE_DIR "/examples/rtgpu/sim-two-tasks.json";
  for (const std::string& args :
       {std::string("generate uunifast --n 3 --total nan"),
        std::string("generate uunifast --n 3 --total inf"),
        std::string("generate uunifast --n 3 --total 1 --max-each nan"),
        std::string("generate rtgpu --utilization nan"), std::string("generate rtgpu --utilization 1e308"),
        std::string("generate signal --samples 16 --snr nan --out ") + path("s.cf32"),
        "simulate-rtgpu " + rt + " --jobs 2 --jitter nan",
        "simulate-rtgpu " + rt + " --jobs 2 --jitter 1e308",
        "simulate-system " + sys + " --horizon 100 --jitter nan",
        "simulate-system " + sys + " --horizon 100 --jitter 1e308",
        "simulate-system " + sys + " --horizon inf", "analyze smlp " + kExample + " --rho inf"}) {
    const Outcome r = cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("gpurt: error: ", 0), 0u) << args << "\n" << r.err;
    EXPECT_LT(r.err.size(), 300u) << args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_FALSE(fs::exists(path("s.cf32")));
}

// A task system given to a command that takes one model says so before any other complaint,
// and names the conversion (it used to say "virtual_sms_per_sm: unknown key").
TEST_F(Cli, ATaskSystemGivenForAModelNamesTheConversion) {
  const std::string sys = GPURT_SOURCE_DIR "/examples/system/mixed.system.json";
  for (const std::string model : {"smlp", "rtgpu", "fifo", "pbs"}) {
    const Outcome r = cli("analyze " + model + " " + sys);
    EXPECT_EQ(r.code, 2) << model << ": " << r.err;
    EXPECT_NE(r.err.find("format = \"gpurt/system@1\": must be \"gpurt/" + model +
                         "@1\"; this is a task system: `gpurt convert FILE --to " + model + "`"),
              std::string::npos)
        << r.err;
  }
}

// CLI11 alone reads an empty value as 0 (`--trials ''` ran zero trials): refused before parsing.
TEST_F(Cli, EmptyValuesAreBadInputNamingTheirOption) {
  const std::string sys = GPURT_SOURCE_DIR "/examples/system/four-identical.json";
  const struct {
    std::string args, message;
  } cases[] = {
      {"generate uunifast --n 3 --total 1 --seed ''", "--seed has an empty value"},
      {"generate uunifast --n 3 --total 1 --seed=", "--seed has an empty value"},
      {"simulate-system " + sys + " --horizon ''", "--horizon has an empty value"},
      {"analyze smlp ''", "argument 3 is empty"},
  };
  for (const auto& c : cases) {
    const Outcome r = cli(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_EQ(r.err, "gpurt: error: " + c.message + "\n") << c.args;
    EXPECT_EQ(r.out, "") << c.args;
  }
  // The same commands with their values run.
  EXPECT_EQ(cli("generate uunifast --n 3 --total 1 --seed 4").code, 0);
  EXPECT_EQ(cli("generate uunifast --n 3 --total 1 --seed=4").code, 0);
}

// A FIFO file holds at most 2^30 threads, what its one-pool system platform can hold: 2^30 + 1
// loaded, then `convert --to system` wrote a file the system reader refused.
TEST_F(Cli, FifoFilesHoldAtMostTwoToThirtyThreads) {
  const std::string f = write("big.json", R"({"format": "gpurt/fifo@1", "gpu_threads": 1073741825,
    "tasks": [{"name": "t", "wcet": 1, "period": 8, "grid": 1, "block": 1024}]})");
  const Outcome r = cli("analyze fifo " + f);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("gpu_threads = 1073741825"), std::string::npos) << r.err;
  const std::string ok = write("ok.json", R"({"format": "gpurt/fifo@1", "gpu_threads": 1073741824,
    "tasks": [{"name": "t", "wcet": 1, "period": 8, "grid": 1, "block": 1024}]})");
  ASSERT_EQ(cli("convert " + ok + " --to system --out " + path("s.json")).code, 0);
  const Outcome back = cli("convert " + path("s.json") + " --to fifo");
  EXPECT_EQ(back.code, 0) << back.err;
  EXPECT_NE(back.out.find("1073741824"), std::string::npos) << back.out;
}

// ---- Issue 16: default limits on memory and time, named in the error and raisable ----

TEST_F(Cli, DefaultLimitsNameTheOptionThatRaisesThem) {
  const std::string rt = GPURT_SOURCE_DIR "/examples/rtgpu/sim-two-tasks.json";
  const struct {
    std::string args, option;
  } cases[] = {
      {"simulate-rtgpu " + rt + " --jobs 10000000", "--max-jobs"},
      {"simulate-rtgpu --generated 1000000", "--max-generated"},
      {"generate uunifast --n 1000000 --total 1 --count 10000000", "--max-values"},
      {"generate signal --samples 268435456 --out " + path("s.cf32"), "--max-samples"},
  };
  for (const auto& c : cases) {
    const Outcome r = cli(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.option), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(r.out, "");
  }
  // simulate-system: 200 tasks of period 1 until 1e6 release 2e8 jobs.
  std::string tasks;
  for (int i = 0; i < 200; ++i) {
    tasks +=
        fmt::format("{}{{\"name\": \"t{}\", \"wcet_by_units\": [0.5], \"deadline\": 1}}", i ? "," : "", i);
  }
  const std::string sys = write("many.json", R"({"format": "gpurt/smlp@1", "time_unit": "ms",
    "platform": "radeon-vii", "tasks": [)" + tasks +
                                                 "]}");
  const Outcome r = cli("simulate-system " + sys + " --horizon 1e6");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--max-jobs"), std::string::npos) << r.err;
  EXPECT_EQ(cli("simulate-system " + sys + " --horizon 2").code, 0);
}

TEST_F(Cli, PbsSearchStopsAtTheDefaultVertexCapWithExitOne) {
  std::string tasks;
  for (int i = 0; i < 32; ++i) {
    tasks += fmt::format(
        "{}{{\"name\": \"t{}\", \"period\": 100, \"wcet\": 10, \"blocks\": 132, \"threads\": 1024}}",
        i ? "," : "", i);
  }
  const std::string f =
      write("p32.json",
            R"({"format": "gpurt/pbs@1", "time_unit": "ms", "platform": "h100", "tasks": [)" + tasks + "]}");
  const Outcome a = cli("analyze pbs " + f + " --max-vertices 200");
  EXPECT_EQ(a.code, 1) << a.err;
  EXPECT_NE(a.err.find("--max-vertices 200"), std::string::npos) << a.err;
  const Outcome t = cli("simulate-table " + f + " --max-vertices 200");
  EXPECT_EQ(t.code, 1) << t.err;
  EXPECT_NE(t.err.find("--max-vertices 200"), std::string::npos) << t.err;
  EXPECT_NE(cli("analyze pbs --help").out.find("default 1000000"), std::string::npos);
}

// A folder that access() calls writable but where no file can be created (/proc, for root) is
// refused before the run, and nothing is left behind; so is an empty item in chart's --y list.
TEST_F(Cli, OutputsWhereNoFileCanBeCreatedAndEmptyColumnNamesAreRefusedFirst) {
  const Outcome svg =
      cli("simulate " + kCut + " --platform jetson-tx2 --out " + path("r") + " --svg /proc/x.svg");
  EXPECT_EQ(svg.code, 2) << svg.err;
  EXPECT_NE(svg.err.find("--svg = /proc/x.svg: folder /proc is not writable"), std::string::npos) << svg.err;
  EXPECT_FALSE(std::filesystem::exists(path("r")));
  // A missing --out folder whose nearest existing ancestor cannot take a new entry.
  const Outcome nested = cli("simulate " + kCut + " --platform jetson-tx2 --out /proc/gpurt-x/r");
  EXPECT_EQ(nested.code, 2) << nested.err;
  EXPECT_EQ(nested.err,
            "gpurt: error: command line: --out = /proc/gpurt-x/r: cannot be created: /proc is not "
            "writable\n");
  const Outcome convert =
      cli("convert " GPURT_SOURCE_DIR "/examples/system/mixed.system.json --to smlp --out /proc/x.json");
  EXPECT_EQ(convert.code, 2) << convert.err;
  const std::string csv = write("s.csv", "x,a,b\n1,2,3\n2,3,4\n");
  for (const char* y : {"a,", ",a", "a,,b"}) {
    const Outcome chart = cli("chart " + csv + " --x x --y " + y + " --out " + path("c.svg"));
    EXPECT_EQ(chart.code, 2) << y;
    EXPECT_EQ(chart.err, fmt::format("gpurt: error: command line: --y = {}: has an empty item: name columns "
                                     "separated by commas\n",
                                     y));
  }
  EXPECT_EQ(cli("chart " + csv + " --x x --y a,b --out " + path("c.svg")).code, 0);
  EXPECT_EQ(cli("chart " + csv + " --x x --y a --y b --out " + path("c.svg")).code, 0);
}

// `--seed` on `simulate` and `sweep cu-masks` replaces the config's "gpurt_sim": {"seed": N}: the
// radeon-vii preset draws one launch factor per kernel (kernel_jitter), so isolated MM1024's times
// depend on the seed. --seed 1 is the default (no seed in the config), --seed 2 gives other times,
// and a config that says seed 2 gives the same bytes as --seed 2 on the config without one, and
// --seed 2 beats the config's seed 7. A bad seed exits 2, nothing written.
// The person running a config raises its limits (--max-blocks, --max-kernels on simulate and
// bench); the config's gpurt_sim keys may only lower them.
TEST_F(Cli, OnlyTheCommandLineRaisesAConfigsLimits) {
  const std::string cfg =
      write_edited("limits.json", GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json", "\"benchmarks\"",
                   "\"gpurt_sim\": {\"max_kernels\": 2000000}, \"benchmarks\"");
  for (const char* cmd : {"simulate", "bench"}) {
    const Outcome r = cli(fmt::format("{} {} --platform jetson-tx2 --out {}", cmd, cfg, path("r")));
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_NE(
        r.err.find("gpurt_sim.max_kernels = 2000000: is above the 1000000 this run allows (--max-kernels"),
        std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(path("r")));
    EXPECT_EQ(
        cli(fmt::format("{} {} --platform jetson-tx2 --out {} --max-kernels 2000000", cmd, cfg, path("r")))
            .code,
        0)
        << cmd;
    fs::remove_all(path("r"));
  }
}

TEST_F(Cli, SeedOptionReplacesTheConfigsSeed) {
  const std::string config = GPURT_SOURCE_DIR "/examples/amd/isolated_mm1024.json";
  const std::string seeded =
      write_edited("seeded.json", config, "\"gpurt_sim\": {", "\"gpurt_sim\": {\"seed\": 2,");
  const std::string seven =
      write_edited("seven.json", config, "\"gpurt_sim\": {", "\"gpurt_sim\": {\"seed\": 7,");
  const auto run = [&](const std::string& file, const std::string& extra, const std::string& out) {
    const Outcome r = cli("simulate " + file + " --platform radeon-vii --out " + path(out) + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    return read(out + "/MM1024.json");
  };
  const std::string none = run(config, "", "none"), one = run(config, " --seed 1", "one");
  const std::string two = run(config, " --seed 2", "two"), in_config = run(seeded, "", "config");
  const std::string over = run(seven, " --seed 2", "over");
  EXPECT_EQ(one, none);
  EXPECT_NE(two, none);
  EXPECT_EQ(in_config, two);
  EXPECT_EQ(over, two);
  // The config takes every seed --seed takes (0..2^64-1; it stopped at 2^63-1 until 2026-11-28).
  const std::string top =
      write_edited("top.json", config, "\"gpurt_sim\": {", "\"gpurt_sim\": {\"seed\": 18446744073709551615,");
  EXPECT_EQ(run(top, "", "top"), run(config, " --seed 18446744073709551615", "top-option"));
  const std::string past = write_edited("past.json", config, "\"gpurt_sim\": {",
                                        "\"gpurt_sim\": {\"seed\": 18446744073709551616,");
  const Outcome refused = cli("simulate " + past + " --platform radeon-vii --out " + path("past"));
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("gpurt_sim.seed"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(path("past")));
  const auto sweep = [&](const std::string& extra, const std::string& out) {
    const Outcome r = cli("sweep cu-masks " + config + " --sizes 30 --layouts se-packed --quiet" + extra +
                          " --out " + path(out));
    EXPECT_EQ(r.code, 0) << r.err;
    return read(out);
  };
  EXPECT_EQ(sweep(" --seed 1", "a.csv"), sweep("", "b.csv"));
  EXPECT_NE(sweep(" --seed 2", "c.csv"), sweep("", "d.csv"));
  // A sweep's settings record a left-out seed as the config's, not as 1: resuming the rows of the
  // seed-7 config with --seed 1 is refused.
  const std::string cut =
      "sweep cu-masks " + seven + " --sizes 30,31 --layouts se-packed --quiet --out " + path("e.csv");
  ASSERT_EQ(cli(cut).code, 0);
  const std::string rows = read("e.csv");
  std::ofstream(path("e.csv")) << rows.substr(0, rows.rfind('\n', rows.size() - 2) + 1);  // the last row cut
  const Outcome resumed = cli(cut + " --seed 1");
  EXPECT_EQ(resumed.code, 2) << resumed.err;
  EXPECT_NE(resumed.err.find("settings.--seed = \"\": this run has 1"), std::string::npos) << resumed.err;
  for (const std::string& cmd : {"simulate " + config + " --platform radeon-vii --out " + path("bad"),
                                 "sweep cu-masks " + config + " --out " + path("bad.csv")}) {
    const Outcome bad = cli(cmd + " --seed -1");
    EXPECT_EQ(bad.code, 2) << cmd << ": " << bad.err;
    EXPECT_NE(bad.err.find("--seed"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(path("bad")) || fs::exists(path("bad.csv"))) << cmd;
  }
}
