// `gpurt convert` as a user runs it: every format into a system and back, a model that does not
// apply (exit 2 with its reason), and outputs written whole or not at all.
#include <gtest/gtest.h>

#include "cli_fixture.hpp"

#include <filesystem>

#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"

namespace {

using gpurt::test::Outcome;

class ConvertCli : public gpurt::test::CliTest {};

const std::string kExamples = GPURT_SOURCE_DIR "/examples/";

TEST_F(ConvertCli, PbsFigure1ToSystemAndBack) {
  const Outcome sys =
      cli("convert " + kExamples + "pbs/figure1.json --to system --out " + path("f.system.json"));
  ASSERT_EQ(sys.code, 0) << sys.err;
  EXPECT_TRUE(sys.out.empty());
  const gpurt::Json s = gpurt::Json::parse(read("f.system.json"));
  EXPECT_EQ(s["format"], "gpurt/system@1");
  EXPECT_EQ(
      s["tasks"][1].dump(),
      R"({"name":"t2","period":5.0,"deadline":5.0,"segments":[{"kernel":{"blocks":1,"threads":64,"wcet":3.0}}]})");
  EXPECT_EQ(s["batches"][3].dump(), R"({"tasks":["t1","t2","t3"],"completion":6.0})");
  const Outcome pbs = cli("convert " + path("f.system.json") + " --to pbs");
  ASSERT_EQ(pbs.code, 0) << pbs.err;
  const Outcome direct = cli("convert " + kExamples + "pbs/figure1.json --to pbs");
  ASSERT_EQ(direct.code, 0) << direct.err;
  EXPECT_EQ(pbs.out, direct.out);
  EXPECT_EQ(gpurt::Json::parse(pbs.out)["tasks"][2]["wcet"], 3.0);
}

// C_i is thread·time: a 4 s kernel of 264 x 1024 threads is 1,081,344 thread·s, past 10^15 ns, and
// was refused as a time; a thread's share (and the kernel alone on the GPU) is the time bounded.
TEST_F(ConvertCli, AFifoWorkloadIsBoundedPerThreadNotAsATime) {
  const std::string big =
      write("big.json", R"({"format": "gpurt/system@1", "time_unit": "s", "platform": "h100",
      "tasks": [{"name": "big", "period": 10, "segments": [{"kernel": {"blocks": 264, "threads": 1024, "wcet": 4}}]}]})");
  const Outcome fifo = cli("convert " + big + " --to fifo --out " + path("big.fifo.json"));
  ASSERT_EQ(fifo.code, 0) << fifo.err;
  EXPECT_EQ(gpurt::Json::parse(read("big.fifo.json"))["tasks"][0]["wcet"], 1081344.0);
  const Outcome analysed = cli("analyze fifo " + path("big.fifo.json") + " --json");
  ASSERT_EQ(analysed.code, 0) << analysed.err;
  EXPECT_DOUBLE_EQ(gpurt::Json::parse(analysed.out)["total_utilization"].get<double>(), 108134.4);
  // One thread's share past 10^15 ns: refused, naming it.
  const std::string share =
      write("share.json", R"({"format": "gpurt/fifo@1", "time_unit": "s", "gpu_threads": 4096,
      "tasks": [{"name": "t", "wcet": 2000002, "period": 1e6, "grid": 2, "block": 1}]})");
  const Outcome refused = cli("analyze fifo " + share);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(
      refused.err.find("tasks[0].wcet = 2000002: is too large: one thread's share of it (2 threads) passes "
                       "10^15 ns"),
      std::string::npos)
      << refused.err;
}

// The batch table and a kernel's slowdown exist only in the PBS model: converting to another is
// allowed, and says what it drops (it dropped them silently).
TEST_F(ConvertCli, DroppedInterferenceIsSaid) {
  for (const char* to : {"smlp", "fifo"}) {
    const Outcome o = cli("convert " + kExamples + "pbs/figure1.json --to " + to);
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.err.find("warning: " + kExamples +
                         "pbs/figure1.json: the file gives 4 PBS batch completion times (kernels slower "
                         "together); the " +
                         to + " format has no place for it"),
              std::string::npos)
        << o.err;
  }
  const Outcome slow = cli("convert " + kExamples + "pbs/example-2-1.json --to smlp");
  ASSERT_EQ(slow.code, 0) << slow.err;
  EXPECT_NE(slow.err.find("task \"J1\" declares a slowdown of 1.5"), std::string::npos) << slow.err;
  for (const char* to : {"system", "pbs"})
    EXPECT_EQ(cli("convert " + kExamples + "pbs/figure1.json --to " + to).err, "") << to;
}

TEST_F(ConvertCli, RtgpuToSmlpUsesLemma51) {
  const Outcome r = cli("convert " + kExamples + "rtgpu/two-tasks.json --to smlp");
  ASSERT_EQ(r.code, 0) << r.err;
  const gpurt::Json j = gpurt::Json::parse(r.out);
  // GW = 4 ms on 2k virtual SMs: L(A,1) = 2 ms, L(A,2) = 1 ms; CPU 1 + copy 1 on each side. Each
  // copy may wait for B's copy of 3 ms on its engine (gtx1080ti: one engine a direction): 6 ms.
  EXPECT_EQ(
      j["tasks"][0].dump(),
      R"({"name":"A","wcet_by_units":[2.0,1.0],"deadline":20.0,"period":20.0,"cpu_before":2.0,"cpu_after":2.0,)"
      R"("copy_wait":6.0})");
}

TEST_F(ConvertCli, ModelThatDoesNotApplyExitsTwoWithItsReason) {
  const Outcome r = cli("convert " + kExamples + "rtgpu/two-tasks.json --to pbs --out " + path("x.json"));
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("the PBS model does not apply: PBS takes kernels without CPU or copy work; task \"A\" "
                       "segment 0 is cpu work of up to 1 ms"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("x.json")));
}

TEST_F(ConvertCli, BadInputAndOptionsExitTwo) {
  const std::string bad = write("bad.json", R"({"format": "gpurt/system@1", "platform": "h100", "tasks": [
      {"name": "a", "period": 5, "segments": [{"gpu": 1}]}]})");
  const Outcome r = cli("convert " + bad + " --to system");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find(bad + ": tasks[0].segments[0]"), std::string::npos) << r.err;
  EXPECT_EQ(cli("convert " + kExamples + "pbs/figure1.json --to nope").code, 2);
  EXPECT_EQ(
      cli("convert " + kExamples + "pbs/figure1.json --to system --out " + path("no/such/dir/x.json")).code,
      2);
}

TEST_F(ConvertCli, EveryBundledSystemExampleIsASystem) {
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(kExamples + "system")) {
    const std::string f = e.path().string();
    if (f.size() < 12 || f.substr(f.size() - 12) != ".system.json") continue;
    const Outcome r = cli("convert " + f + " --to system --out " + path("a.json"));
    ASSERT_EQ(r.code, 0) << f << ": " << r.err;
    // A system file written by convert reads back to the same file.
    const Outcome again = cli("convert " + path("a.json") + " --to system");
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ(gpurt::Json::parse(again.out), gpurt::Json::parse(read("a.json"))) << f;
    ++files;
  }
  EXPECT_GE(files, 1);
}

}  // namespace
