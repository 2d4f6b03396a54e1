// `gpurt generate signal`, `gpurt fft profile` and `gpurt sweep fft` as a user runs them:
// outputs, the profile → analyze pipeline, and bad input (exit 2, nothing written).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <filesystem>

#include "cli_fixture.hpp"
#include "gpurt/core/cuda_probe.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/model/smlp_task.hpp"

namespace fs = std::filesystem;

namespace {

using gpurt::test::Outcome;

class FftCli : public gpurt::test::CliTest {
 protected:
  bool exists(const std::string& name) const { return fs::exists(_dir / name); }
};

}  // namespace

TEST_F(FftCli, GenerateSignalWritesEightBytesASampleAndTheSameBytesForTheSameSeed) {
  ASSERT_EQ(
      cli("generate signal --samples 1000 --seed 4 --out " + path("a.cf32") + " --meta " + path("a.json"))
          .code,
      0);
  ASSERT_EQ(cli("generate signal --samples 1000 --seed 4 --out " + path("b.cf32")).code, 0);
  EXPECT_EQ(fs::file_size(_dir / "a.cf32"), 8000u);
  EXPECT_EQ(gpurt::read_text_file(path("a.cf32")), gpurt::read_text_file(path("b.cf32")));
  const gpurt::Json meta = gpurt::Json::parse(gpurt::read_text_file(path("a.json")));
  EXPECT_EQ(meta["format"], "gpurt/signal@1");
  EXPECT_GE(meta["signals"].size(), 5u);
  EXPECT_LE(meta["signals"].size(), 50u);
}

TEST_F(FftCli, GenerateSignalRejectsBadOptionsWithoutWriting) {
  EXPECT_EQ(cli("generate signal --samples 0 --out " + path("x.cf32")).code, 2);
  EXPECT_EQ(cli("generate signal --snr 200 --out " + path("x.cf32")).code, 2);
  EXPECT_EQ(cli("generate signal --samples 16 --out " + path("no/such/dir/x.cf32")).code,
            2);  // checked first
  EXPECT_FALSE(exists("x.cf32"));
}

TEST_F(FftCli, ProfileWritesASystemThatAnalyzeSmlpReads) {
  const Outcome p =
      cli("fft profile --model ideal --sizes 20,22 --copies 2 --runs 2 --out " + path("fft.json"));
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("simulated"), std::string::npos);
  const gpurt::SmlpSystem s = gpurt::load_smlp_system(path("fft.json"));
  ASSERT_EQ(s.tasks.size(), 4u);
  EXPECT_EQ(s.platform.id, "rtx3060ti");
  EXPECT_EQ(s.tasks[2].name, "fft_2^22_1");
  EXPECT_EQ(s.tasks[2].wcet_by_units[0], gpurt::Nanos{1'972'300});  // as tests/exp/test_fft.cpp
  const Outcome a = cli("analyze smlp " + path("fft.json"));
  EXPECT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("fft_2^22_2"), std::string::npos);
}

// The cuFFT model's two constants from the command line (scripts/fit-fft refits them): with the
// ideal model L(2^24, k) = 1.05 (s + W/128 x ceil(128/k)) on the RTX 3060 Ti's 2-SM units (256
// blocks of W/128 each, 5 % slower beside the profile's interfering kernels), so s = 100 us and
// W = 8000 us give 8505 us on 1 unit and 2205 us on 4.
TEST_F(FftCli, ProfileTakesTheCufftConstantsFromTheCommandLine) {
  const Outcome p =
      cli("fft profile --model ideal --sizes 24 --runs 1 --cufft-serial-us 100 --cufft-work-us 8000 "
          "--out " +
          path("fft.json"));
  ASSERT_EQ(p.code, 0) << p.err;
  const auto l = gpurt::load_smlp_system(path("fft.json")).tasks[0].wcet_by_units;
  EXPECT_EQ(l[0], gpurt::Nanos{8'505'000});
  EXPECT_EQ(l[3], gpurt::Nanos{2'205'000});
  // Out of range: s must exceed the model's constant part a (3.5 us), W be positive, both finite
  // and at most 1e6 us (a second at 2^24: larger ones made a profile run for minutes).
  for (const std::string args : {"--cufft-serial-us 3", "--cufft-work-us 0", "--cufft-work-us nan",
                                 "--cufft-serial-us -5", "--cufft-work-us 1e12", "--cufft-serial-us 2e6"}) {
    const Outcome r = cli("fft profile --sizes 24 --runs 1 " + args + " --out " + path("bad.json"));
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    const Outcome w = cli("sweep fft --sizes 20 --tasks 1 " + args + " --out " + path("bad.csv"));
    EXPECT_EQ(w.code, 2) << args << ": " << w.err;
  }
  EXPECT_FALSE(exists("bad.json"));
  EXPECT_FALSE(exists("bad.csv"));
}

TEST_F(FftCli, ProfileOnEveryUnitSetSaysHowFarTheSetsDiffer) {
  const Outcome p =
      cli("fft profile --model ideal --sizes 22 --runs 2 --placements all --out " + path("fft.json"));
  ASSERT_EQ(p.code, 0) << p.err;
  // The simulator's units are identical: the sets agree (k = 1 is the first of the ties).
  EXPECT_NE(p.out.find("2^22       unit sets: the worst set is 0.00 % slower than the best (k = 1, 19 sets)"),
            std::string::npos)
      << p.out;
  EXPECT_EQ(gpurt::load_smlp_system(path("fft.json")).tasks[0].wcet_by_units[0], gpurt::Nanos{1'972'300});
  // One set per k (the default) prints no comparison.
  const Outcome one = cli("fft profile --model ideal --sizes 22 --runs 2 --out " + path("one.json"));
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(one.out.find("unit sets"), std::string::npos);
}

TEST_F(FftCli, ProfileBadInputExitsTwoAndWritesNothing) {
  for (const std::string args :
       {"--sizes 30", "--sizes x", "--sizes 22-20", "--backend fpga", "--runs 0", "--platform nosuchgpu",
        "--rho 0.9", "--placements 0", "--placements 2-3", "--placements some",
        // A range to INT_MAX is checked before it is expanded (it ran out of memory, exit 1).
        "--sizes 2147483647-2147483647", "--sizes 10-2147483647", "--placements 2147483647-2147483647",
        // A file analyze smlp reads: at most 1024 tasks; an execution of at most 2^30 points.
        "--sizes 22,24 --copies 600", "--sizes 28 --batch 8"}) {
    const Outcome r = cli("fft profile " + args + " --out " + path("fft.json"));
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << args;
  }
  EXPECT_NE(cli("fft profile --sizes 10-2147483647 --out " + path("fft.json"))
                .err.find("2147483647 is outside 1..28"),
            std::string::npos);
  EXPECT_NE(cli("fft profile --sizes 22,24 --copies 600 --out " + path("fft.json"))
                .err.find("2 sizes x 600 copies is 1200 tasks, more than a task file holds (1024)"),
            std::string::npos);
  const Outcome tasks = cli("sweep fft --tasks 2147483647-2147483647 --out " + path("s.csv"));
  EXPECT_EQ(tasks.code, 2) << tasks.err;
  EXPECT_NE(tasks.err.find("2147483647 is outside 1..1000"), std::string::npos) << tasks.err;
  EXPECT_FALSE(exists("fft.json"));
  EXPECT_FALSE(exists("s.csv"));
}

// An option of the other backend is refused before anything runs (the GPU describes itself and
// runs no model; the simulator has no device), whether or not a GPU is present.
TEST_F(FftCli, AnOptionOfTheOtherBackendIsRefused) {
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--backend sim --device 1", "--device = 1: applies to --backend gpu only, not --backend sim"},
           {"--backend gpu --platform gtx1070", "--platform = gtx1070: applies to --backend sim only"},
           {"--backend gpu --model ideal", "--model = ideal: applies to --backend sim only"},
           {"--backend gpu --cufft-work-us 8000", "--cufft-work-us = 8000: applies to --backend sim only"}}) {
    for (const std::string command :
         {"fft profile --sizes 20 ", "sweep fft --threads 1 --sizes 20 --tasks 1 "}) {
      const Outcome r = cli(command + args + " --out " + path("o.out"));
      EXPECT_EQ(r.code, 2) << command << args;
      EXPECT_NE(r.err.find(message), std::string::npos) << command << args << ": " << r.err;
      EXPECT_FALSE(exists("o.out"));
    }
  }
  // sweep fft's --gpu-copies (the GPU job loop's copies) is a GPU option, with two values.
  Outcome r = cli("sweep fft --threads 1 --sizes 20 --tasks 1 --gpu-copies once --out " + path("o.out"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--gpu-copies = once: applies to --backend gpu only, not --backend sim"),
            std::string::npos)
      << r.err;
  r = cli("sweep fft --backend gpu --threads 1 --sizes 20 --tasks 1 --gpu-copies twice --out " +
          path("o.out"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--gpu-copies: twice not in {each-job,once}"), std::string::npos) << r.err;
  EXPECT_FALSE(exists("o.out"));
}

// Options each in range whose product runs for hours are refused by the work they make (sizes x
// runs x unit sets), and a platform file past 1,024 units is named (the message said "platform").
TEST_F(FftCli, ProfileRefusesMoreSimulationsThanItsLimitAndNamesAPlatformFile) {
  const Outcome r = cli("fft profile --sizes 20-22 --runs 100000 --out " + path("f.json"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("3 size(s) x 100000 runs x 19 unit sets is 5700000 simulated executions, more than "
                       "--max-simulations 2000000"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(exists("f.json"));
  EXPECT_EQ(cli("fft profile --sizes 10 --runs 20 --max-simulations 380 --out " + path("f.json")).code, 0);
  EXPECT_EQ(cli("fft profile --sizes 10 --runs 20 --max-simulations 379 --out " + path("g.json")).code, 2);
  gpurt::Json big = gpurt::Json::parse(cli("platforms h100 --json").out);
  big["sms"] = 2048;
  big["partition_unit"] = 1;
  const std::string file = path("big.json");
  gpurt::write_file_atomically(file, big.dump());
  const Outcome b = cli("fft profile --platform " + file + " --out " + path("h.json"));
  EXPECT_EQ(b.code, 2) << b.err;
  EXPECT_NE(b.err.find(file + ": units = 2048: the FFT profile"), std::string::npos) << b.err;
}

TEST_F(FftCli, GpuBackendWithoutAGpuExitsTwoNamingTheReason) {
  const gpurt::ProbeResult probe = gpurt::probe_gpus();
  if (!probe.devices.empty()) GTEST_SKIP() << "a GPU is visible; scripts/gpu-check runs the GPU backend";
  const Outcome p = cli("fft profile --backend gpu --out " + path("fft.json"));
  EXPECT_EQ(p.code, 2);
  EXPECT_NE(p.err.find("--backend = gpu: no GPU"), std::string::npos) << p.err;
  const Outcome s = cli("sweep fft --backend gpu --threads 1 --sizes 20 --tasks 1 --out " + path("s.csv"));
  EXPECT_EQ(s.code, 2);
  EXPECT_FALSE(exists("fft.json"));
  EXPECT_FALSE(exists("s.csv"));
}

TEST_F(FftCli, SweepWritesCsvAndBothFiguresLabelledSimulated) {
  const Outcome r = cli("sweep fft --sizes 22 --tasks 1,2,6 --trials 1 --jobs 3 --runs 1 --quiet --out " +
                        path("f.csv") + " --plot " + path("f6.svg") + " --plot-throughput " + path("f7.svg"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string csv = gpurt::read_text_file(path("f.csv"));
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "point,points,backend,log2_size,samples,tasks,allowed,jobs,be_avg_us,be_max_us,smlp_avg_us,"
            "smlp_max_us,bound_us,be_throughput_msps,smlp_throughput_msps,be_rt_throughput_msps,"
            "smlp_rt_throughput_msps,violations");
  // One profiling run: S_i = {1,2,3,4} (ten runs see a slower L(4) and drop it, as Table I).
  EXPECT_NE(csv.find("simulated,22,4194304,2,1 2 3 4,6,"), std::string::npos) << csv;
  EXPECT_NE(gpurt::read_text_file(path("f6.svg")).find("simulated"), std::string::npos);
  EXPECT_NE(gpurt::read_text_file(path("f7.svg")).find("simulated"), std::string::npos);
}

// A row one chart cannot draw leaves neither picture (--plot was written before
// --plot-throughput failed), and the error names the CSV the row is in, not "sweep".
TEST_F(FftCli, SweepDrawsBothFiguresOrNeither) {
  const std::string sweep =
      "sweep fft --sizes 10 --tasks 1-3 --trials 1 --jobs 3 --runs 1 --quiet --out " + path("f.csv");
  ASSERT_EQ(cli(sweep).code, 0);
  // A resumed file's cells are numbers, 1e305 too, but beyond what a chart draws.
  std::string csv = gpurt::read_text_file(path("f.csv"));
  std::istringstream lines(csv);
  std::string line, edited;
  std::getline(lines, line);
  edited = line + "\n";
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::stringstream fields(line);
    for (std::string c; std::getline(fields, c, ',');) cells.push_back(c);
    cells[13] = "1e305";  // be_throughput_msps
    std::string joined;
    for (const std::string& c : cells) joined += (joined.empty() ? "" : ",") + c;
    edited += joined + "\n";
  }
  write("f.csv", edited);
  const Outcome r = cli(sweep + " --plot " + path("f6.svg") + " --plot-throughput " + path("f7.svg"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(path("f.csv") + ": row 1.be_throughput_msps = 1e305"), std::string::npos) << r.err;
  EXPECT_FALSE(exists("f6.svg"));
  EXPECT_FALSE(exists("f7.svg"));
}

TEST_F(FftCli, SweepPlotOfTwoSizesIsRefusedBeforeAnyWork) {
  const Outcome r =
      cli("sweep fft --sizes 20,22 --tasks 1 --out " + path("f.csv") + " --plot " + path("f6.svg"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--sizes"), std::string::npos) << r.err;
  EXPECT_FALSE(exists("f.csv"));
  EXPECT_FALSE(exists("f6.svg"));
}

TEST_F(FftCli, CufftExampleSimulatesTwoPartitionsSideBySide) {
  // Each instance on 3 TPCs with the other one resident: 51660 + 43·15005 ns (tests/exp/test_fft),
  // on the ideal performance model.
  const Outcome r = cli("simulate " GPURT_SOURCE_DIR
                        "/examples/sim/cufft-two-partitions.json --platform rtx3060ti --model ideal --out " +
                        path("sim"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("fft_b     cufft            3      132       0.000696875        0.000696875"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(exists("sim/fft_a.json"));
}
