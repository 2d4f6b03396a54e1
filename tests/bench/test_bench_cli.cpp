// `gpurt bench` and `gpurt plot` as a user runs them: the sim backend gives byte-identical
// files to `gpurt simulate`; one result schema for both backends; the gpu backend without a
// GPU and bad configs exit 2 and write nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "../cli/cli_fixture.hpp"
#include "gpurt/bench/results.hpp"
#include "gpurt/core/cuda_probe.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/sim/simulate.hpp"
#include "gpurt/trace/examiner_json.hpp"

namespace fs = std::filesystem;

namespace {

using gpurt::test::Outcome;

class BenchCli : public gpurt::test::CliTest {};

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  if (!fs::exists(dir)) return names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

const char* const kExamples[] = {
    "concurrent_kernels", "cuda_free",       "cut_ahead",         "fifo_example_1", "greedy",
    "null_stream",        "ordering_allows", "ordering_prevents", "primary_fifo",   "stream_fifo"};

TEST_F(BenchCli, SimBackendMatchesSimulateByteForByte) {
  for (const char* name : kExamples) {
    const std::string config = std::string(GPURT_SOURCE_DIR "/examples/sim/") + name + ".json";
    const std::string a = path(std::string(name) + "-bench"), b = path(std::string(name) + "-sim");
    const Outcome rb = cli("bench " + config + " --backend sim --platform jetson-tx2 --out " + a);
    ASSERT_EQ(rb.code, 0) << name << ": " << rb.err;
    const Outcome rs = cli("simulate " + config + " --platform jetson-tx2 --out " + b);
    ASSERT_EQ(rs.code, 0) << name << ": " << rs.err;
    const auto files = files_in(a);
    ASSERT_FALSE(files.empty()) << name;
    ASSERT_EQ(files, files_in(b)) << name;
    for (const std::string& f : files) {
      EXPECT_EQ(gpurt::read_text_file(a + "/" + f), gpurt::read_text_file(b + "/" + f)) << name << "/" << f;
    }
  }
}

// Every key, recursively; arrays contribute the keys of their object elements.
void collect_keys(const gpurt::Json& j, const std::string& prefix, std::set<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      out.insert(prefix + "." + k);
      collect_keys(v, prefix + "." + k, out);
    }
  } else if (j.is_array()) {
    for (const auto& v : j) collect_keys(v, prefix + "[]", out);
  }
}

TEST(BenchSchema, MeasuredResultHasTheSimulatedSchema) {
  const gpurt::Platform& p = *gpurt::find_platform_preset("jetson-tx2");
  const auto scenario = gpurt::load_scenario(GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json", p);
  const gpurt::Trace sim = gpurt::simulate(scenario, p).trace;
  // What the gpu backend builds from a measurement (bench.cpp): same header, simulated false,
  // run times, blocks with SM ids.
  gpurt::Trace measured;
  measured.scenario_name = scenario.name;
  measured.platform = p.id;
  measured.sms = p.sms;
  measured.max_threads_per_sm = p.max_threads;
  measured.simulated = false;
  gpurt::InstanceTrace in;
  in.benchmark_name = "timer_spin";
  in.log_name = "m.json";
  gpurt::IterationRecord it;
  it.execute_start = gpurt::Nanos{1000};
  it.execute_end = gpurt::Nanos{1'001'000'000};
  gpurt::KernelRecord k;
  k.name = "timer_spin";
  k.block_count = 1;
  k.launch_before = gpurt::Nanos{1000};
  k.launch_after = gpurt::Nanos{9000};
  k.sync_after = gpurt::Nanos{1'001'000'000};
  k.blocks.push_back({gpurt::Nanos{20'000}, gpurt::Nanos{1'000'020'000}, 1});
  it.kernels.push_back(k);
  in.iterations.push_back(it);
  measured.instances.push_back(in);
  std::set<std::string> a, b;
  collect_keys(gpurt::examiner_result(sim, sim.instances[0]), "", a);
  collect_keys(gpurt::examiner_result(measured, measured.instances[0]), "", b);
  EXPECT_EQ(a, b);
  EXPECT_TRUE(a.count(".gpurt.simulated"));
  EXPECT_TRUE(a.count(".times[].block_smids"));
  const gpurt::Json m = gpurt::examiner_result(measured, measured.instances[0]);
  EXPECT_EQ(m["gpurt"]["simulated"], false);
  EXPECT_DOUBLE_EQ(m["times"][2]["block_times"][1].get<double>(), 1.00002);
}

TEST_F(BenchCli, GpuBackendWithoutGpuExits2AndWritesNothing) {
  const gpurt::ProbeResult probe = gpurt::probe_gpus();
  if (!probe.devices.empty()) GTEST_SKIP() << "a GPU is present: " << probe.devices[0].name;
  const std::string out = path("out");
  const Outcome r = cli("bench " GPURT_SOURCE_DIR
                        "/examples/sim/cut_ahead.json --backend gpu --platform jetson-tx2 "
                        "--out " +
                        out + " --svg " + path("t.svg"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("gpurt: error: --backend gpu: no usable GPU: "), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(path("t.svg")));
}

TEST_F(BenchCli, BadConfigsExit2WithPathAndNoFiles) {
  const std::string out = path("out");
  const std::string bad =
      write("bad.json", R"({"name": "x", "max_iterations": 1, "max_time": 0, "benchmarks": [
      {"filename": "matrix_multiply", "thread_count": 256, "block_count": 1,
       "additional_info": {"matrix_width": -3}}]})");
  for (const char* backend : {"sim", "gpu"}) {
    const Outcome r =
        cli("bench " + bad + " --backend " + std::string(backend) + " --platform h100 --out " + out);
    EXPECT_EQ(r.code, 2) << backend;
    EXPECT_NE(r.err.find("bad.json: benchmarks[0].additional_info.matrix_width = -3"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  // What only the gpu backend cannot do is refused before it looks for a GPU.
  const std::string mps =
      write("mps.json", R"({"name": "x", "max_iterations": 1, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin", "thread_count": 32, "block_count": 1, "additional_info": 1000,
       "mps_thread_percentage": 40}]})");
  Outcome r = cli("bench " + mps + " --backend gpu --platform h100 --out " + out);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("mps.json: benchmarks[0].mps_thread_percentage = 40: needs \"use_processes\": true"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
  r = cli("bench " + bad + " --backend fpga --platform h100 --out " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("fpga"), std::string::npos) << r.err;
  r = cli("bench " + path("missing.json") + " --platform h100 --out " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(BenchCli, PluginLibrariesAreGpuOnlyAndBadOnesExit2) {
  const std::string out = path("out");
  const std::string cfg =
      write("lib.json", R"({"name": "lib", "max_iterations": 2, "max_time": 0, "benchmarks": [
      {"filename": "./bin/cpu_sleep.so", "thread_count": 1, "block_count": 1, "additional_info": 500}]})");
  const std::string lib = std::string(" --plugin-lib ") + GPURT_TEST_PLUGIN_LIB;
  Outcome r = cli("bench " + cfg + " --backend sim --platform h100 --out " + out + lib);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("plugin \"cpu_sleep\" cannot be simulated"), std::string::npos) << r.err;
  r = cli("bench " + cfg + " --backend gpu --platform h100 --out " + out + " --plugin-lib " +
          path("none.so"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("gpurt: error: --plugin-lib: plugin library " + path("none.so")), std::string::npos)
      << r.err;
  r = cli("bench " + cfg + " --backend gpu --platform h100 --out " + out + lib + " --plugin-lib " +
          GPURT_TEST_PLUGIN_LIB);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is already registered"), std::string::npos) << r.err;
  if (gpurt::probe_gpus().devices.empty()) {  // the library loads; the missing GPU stops the run
    r = cli("bench " + cfg + " --backend gpu --platform h100 --out " + out + lib);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("no usable GPU"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(BenchCli, HelpHasAnExampleAndSimNeedsAPlatform) {
  Outcome r = cli("bench --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("gpurt bench examples/sim/cut_ahead.json --backend sim"), std::string::npos) << r.out;
  r = cli("bench " GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json --out " + path("out"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--platform"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("out")));
}

TEST_F(BenchCli, ResultsGoToBaseResultDirectoryUnlessOutIsGiven) {
  const std::string body = R"("max_iterations": 2, "max_time": 0, "benchmarks": [
      {"filename": "timer_spin", "log_name": "t.json", "thread_count": 64, "block_count": 2,
       "additional_info": 1000}]})";
  // Relative to the folder gpurt runs in, as the examiner's "./results".
  const std::string cfg = write("based.json", R"({"name": "b", "base_result_directory": "./res", )" + body);
  const std::string in_dir =
      "cd " + path("") + " && " + std::string(GPURT_CLI) + " bench based.json --platform h100";
  ASSERT_EQ(WEXITSTATUS(std::system((in_dir + " >/dev/null").c_str())), 0);
  EXPECT_EQ(files_in(path("res")), std::vector<std::string>{"t.json"});
  // A config may not send its results above that folder or to an absolute one (it could name
  // any file there): exit 2 naming the key, nothing written; --out may go anywhere.
  for (const std::string& dir : {path("abs"), std::string("../up"), std::string("a/../../up")}) {
    const std::string away =
        write("away.json", R"({"name": "b", "base_result_directory": ")" + dir + "\", " + body);
    const Outcome w = cli("bench " + away + " --platform h100");
    EXPECT_EQ(w.code, 2) << dir;
    EXPECT_NE(w.err.find("base_result_directory = " + dir + ": must be a folder below the one gpurt runs in"),
              std::string::npos)
        << w.err;
    EXPECT_FALSE(fs::exists(path("abs"))) << dir;
    EXPECT_EQ(cli("bench " + away + " --platform h100 --out " + path("o2")).code, 0) << dir;
  }
  Outcome r = cli("bench " + cfg + " --platform h100 --out " + path("o"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(files_in(path("o")), std::vector<std::string>{"t.json"});
  // Neither: exit 2 naming --out, nothing written.
  const std::string bare = write("bare.json", R"({"name": "b", )" + body);
  r = cli("bench " + bare + " --platform h100");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
  const std::string empty = write("empty.json", R"({"name": "b", "base_result_directory": "", )" + body);
  r = cli("bench " + empty + " --platform h100");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("base_result_directory"), std::string::npos) << r.err;
}

TEST_F(BenchCli, TimeoutEndsARunThatDoesNotEndWithExit1AndNoFiles) {
  // 10^5 simulated seconds of 5000-block kernels: far longer than anyone waits.
  const std::string endless = write("endless.json", R"({"name": "long", "max_iterations": 0,
      "max_time": 100000, "omit_block_times": true, "benchmarks": [
      {"filename": "timer_spin", "log_name": "t.json", "thread_count": 64, "block_count": 5000,
       "additional_info": 1000}]})");
  Outcome r = cli("bench " + endless + " --platform h100 --out " + path("o") + " --timeout 0.3");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("did not end within --timeout 0.3 s"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("o")));
  // A run that ends in time is not disturbed; a timeout that is not a positive number is exit 2.
  r = cli("bench " GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json --platform jetson-tx2 --out " + path("o") +
          " --timeout 60");
  EXPECT_EQ(r.code, 0) << r.err;
  // A huge limit is no limit (it once overflowed the clock and fired at once).
  r = cli("bench " GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json --platform jetson-tx2 --out " + path("q") +
          " --timeout 1e300");
  EXPECT_EQ(r.code, 0) << r.err;
  r = cli("bench " GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json --platform jetson-tx2 --out " + path("p") +
          " --timeout 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--timeout"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("p")));
}

TEST_F(BenchCli, SimBackendRunsMatrixMultiplyAndRandomWalk) {
  // The walk is released after the three multiplications are done, so neither disturbs the other.
  const std::string config =
      write("mm.json", R"({"name": "mm", "max_iterations": 3, "max_time": 0, "benchmarks": [
      {"filename": "matrix_multiply", "log_name": "mm.json", "thread_count": 1024, "block_count": 1,
       "additional_info": {"matrix_width": 1024, "skip_copy": true}},
      {"filename": "random_walk", "log_name": "rw.json", "thread_count": 32, "block_count": 2,
       "data_size": 1048576, "additional_info": 1000, "release_time": 0.01}]})");
  const Outcome r = cli("bench " + config + " --platform h100 --out " + path("out") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const gpurt::Json j = gpurt::parse_json(r.out, "stdout");
  EXPECT_EQ(j["backend"], "sim");
  EXPECT_EQ(j["instances"][0]["iterations"], 3);
  // 1024 blocks of 1024 threads on 132 SMs of 2048 threads: 264 at a time, 4 waves of
  // 1024 x 1024 x 0.4 ns = 419430.4 -> 419431 ns.
  EXPECT_DOUBLE_EQ(j["instances"][0]["worst_execute_s"].get<double>(), 4 * 419431e-9);
  // 1000 dependent reads x 500 ns; both blocks run at once.
  EXPECT_DOUBLE_EQ(j["instances"][1]["worst_execute_s"].get<double>(), 500000e-9);
  const gpurt::Json mm = gpurt::load_json_file(path("out/mm.json"));
  EXPECT_EQ(mm["block_count"], 1024);
  EXPECT_EQ(mm["times"][2]["block_count"], 1024);
  EXPECT_EQ(mm["times"][2]["block_smids"].size(), 1024U);
}

TEST_F(BenchCli, PlotCdfAndCompare) {
  const std::string config = GPURT_SOURCE_DIR "/examples/sim/cut_ahead.json";
  ASSERT_EQ(cli("bench " + config + " --platform jetson-tx2 --out " + path("a")).code, 0);
  ASSERT_EQ(cli("simulate " + config + " --platform jetson-tx2 --out " + path("b")).code, 0);
  Outcome r = cli("plot " + path("a") + "/cutahead_1.json " + path("a") + "/cutahead_2.json --cdf " +
                  path("cdf.svg"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string cdf = gpurt::read_text_file(path("cdf.svg"));
  EXPECT_NE(cdf.find("Released first"), std::string::npos);
  EXPECT_NE(cdf.find("Released second"), std::string::npos);
  EXPECT_NE(cdf.find("response time (ms)"), std::string::npos);
  r = cli("plot --compare " + path("a") + " " + path("b") + " --svg " + path("cmp.svg") + " --cdf " +
          path("c2.svg"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string cmp = gpurt::read_text_file(path("cmp.svg"));
  // Both folders hold simulated results: each side says so (the right one said "measured").
  EXPECT_NE(cmp.find("predicted (simulated): Cutting ahead test"), std::string::npos);
  EXPECT_NE(cmp.find(">simulated: Cutting ahead test"), std::string::npos);
  EXPECT_EQ(cmp.find("measured"), std::string::npos);
  EXPECT_NE(gpurt::read_text_file(path("c2.svg")).find("predicted (simulated) vs simulated"),
            std::string::npos);
  EXPECT_EQ(cmp.rfind("<svg", 0), 0U);
  // A missing folder: exit 2, nothing written.
  r = cli("plot --compare " + path("a") + " " + path("nope") + " --svg " + path("x.svg") + " --cdf " +
          path("y.svg"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("x.svg")));
  EXPECT_FALSE(fs::exists(path("y.svg")));
}

}  // namespace

// What only the simulator models is refused by the gpu backend before anything runs, exit 2 with
// the path (not exit 1 from a worker that finds no plugin), whether or not a GPU is present.
TEST_F(BenchCli, GpuBackendRefusesSimulatorOnlyPluginsAndPerKernelMasks) {
  const Outcome m = cli("bench " GPURT_SOURCE_DIR
                        "/examples/examiner/mandelbrot.json --backend gpu --platform "
                        "gtx1080ti --out " +
                        path("m"));
  EXPECT_EQ(m.code, 2);
#ifdef GPURT_HAVE_CUDA  // without CUDA the gpu backend has no plugins, and says it was built without CUDA
  EXPECT_NE(m.err.find("benchmarks[0].filename = mandelbrot: has no GPU implementation"), std::string::npos)
      << m.err;
#endif
  const Outcome k = cli("bench " GPURT_SOURCE_DIR
                        "/examples/examiner/multikernel_keys.json --backend gpu "
                        "--platform gtx1080ti --out " +
                        path("k"));
  EXPECT_EQ(k.code, 2);
  EXPECT_NE(k.err.find("sm_mask"), std::string::npos) << k.err;
  EXPECT_FALSE(std::filesystem::exists(path("m")));
  EXPECT_FALSE(std::filesystem::exists(path("k")));
}
