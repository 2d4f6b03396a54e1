// `gpurt calibrate` as a user runs it: result folders of the bundled calibration configs (here
// written by the sim backend of `gpurt bench` under a hidden model, as a stand-in for a GPU)
// fitted back into a platform file the other commands accept; bad input exits 2.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "cli_fixture.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/model/platform.hpp"

using gpurt::test::Outcome;

namespace {
class CalibrateCli : public gpurt::test::CliTest {};
const char* kConfigs[] = {"bandwidth", "coresidence", "isolated", "spread", "switch"};
}  // namespace

TEST_F(CalibrateCli, FitsTheHiddenModelOfBenchResultsAndWritesAPlatform) {
  const std::string hidden = write("hidden.json", R"({"format": "gpurt/platform@1", "preset": "rtx3060ti",
      "model": {"switch_cost": 0.2, "coresidence_cost": 0.1, "spread_cost": 0.03, "jitter": 0.08,
                "kernel_jitter": 0.05, "memory_bandwidth": 60}})");
  for (const char* c : kConfigs) {
    const Outcome b =
        cli(std::string("bench " GPURT_SOURCE_DIR "/examples/calibration/") + c +
            ".json --backend sim --platform " + hidden + " --out " + path(std::string("m/") + c));
    ASSERT_EQ(b.code, 0) << c << ": " << b.err;
  }
  // The default fit: the five block-time parameters, the bandwidth and the walks' latency.
  const Outcome r =
      cli("calibrate --platform rtx3060ti --configs " GPURT_SOURCE_DIR "/examples/calibration --measured " +
          path("m") + " --out " + path("fit.json") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const gpurt::Json doc = gpurt::load_json_file(path("fit.json"));
  const gpurt::Platform p = gpurt::parse_platform(gpurt::JsonNode(doc, "fit.json"));
  EXPECT_EQ(p.sms, 38);
  EXPECT_NEAR(p.model.switch_cost, 0.2, 0.02);
  EXPECT_NEAR(p.model.coresidence_cost, 0.1, 0.02);
  EXPECT_NEAR(p.model.spread_cost, 0.03, 0.01);
  EXPECT_NEAR(p.model.jitter, 0.08, 0.02);
  EXPECT_NEAR(p.model.kernel_jitter, 0.05, 0.02);
  EXPECT_NEAR(p.model.memory_bandwidth, 60, 1.8);
  const gpurt::Json out = gpurt::parse_json(r.out, "stdout");
  EXPECT_NEAR(out["random_walk_ns_per_access"].get<double>(), 500, 5);  // the configs' own latency
  EXPECT_EQ(out["residuals"].size(), 5u * 8);
  EXPECT_LT(out["rms_log_error"].get<double>(), 0.02);
  // The fitted file is a platform every command takes.
  EXPECT_EQ(cli("platforms").code, 0);
  const Outcome s =
      cli(std::string("simulate " GPURT_SOURCE_DIR "/examples/calibration/switch.json --platform ") +
          path("fit.json") + " --out " + path("s"));
  EXPECT_EQ(s.code, 0) << s.err;
  // Refused fits, with the measurements in place: exit 2 naming `names`, and no output.
  const auto refused = [&](const std::string& fit, const std::string& names) {
    const Outcome o = cli("calibrate --platform rtx3060ti --fit " + fit +
                          " --configs " GPURT_SOURCE_DIR "/examples/calibration --measured " + path("m") +
                          " --out " + path("refused.json"));
    EXPECT_EQ(o.code, 2) << fit;
    EXPECT_NE(o.err.find(names), std::string::npos) << o.err;
    EXPECT_FALSE(std::filesystem::exists(path("refused.json"))) << fit;
  };
  refused("wave_release", "wave_release");    // the AMD dispatch rules do not act on an NVIDIA GPU
  refused("switch_cost,warp", "fit = warp");  // a parameter that does not exist
}

TEST_F(CalibrateCli, MissingMeasurementsAndUnknownParametersExitTwoWithoutOutput) {
  std::filesystem::create_directories(path("empty"));
  const Outcome a =
      cli("calibrate --platform rtx3060ti --configs " GPURT_SOURCE_DIR "/examples/calibration --measured " +
          path("empty") + " --out " + path("fit.json"));
  EXPECT_EQ(a.code, 2);
  EXPECT_NE(a.err.find("--measured"), std::string::npos) << a.err;
  const Outcome b = cli("calibrate --platform rtx3060ti --fit warp --measured " + path("empty") +
                        " --configs " + path("empty") + " --out " + path("fit.json"));
  EXPECT_EQ(b.code, 2);
  EXPECT_FALSE(std::filesystem::exists(path("fit.json")));
}

// On an AMD platform `gpurt calibrate` fits the dispatch rules from examples/calibration-amd/:
// the radeon-vii preset's own cu_lock_threshold (12) is found again among 0..16 from result files
// the sim backend wrote with the preset (another seed's draws); the default configs folder is
// the AMD one. (The whole default fit: tests/exp/test_calibrate.cpp, CalibrateAmd.)
TEST_F(CalibrateCli, FitsTheRadeonViiLockThresholdBackFromItsDispatchRules) {
  for (const char* c : {"lock", "lone", "pace", "release"}) {
    const Outcome b = cli(std::string("bench " GPURT_SOURCE_DIR "/examples/calibration-amd/") + c +
                          ".json --backend sim --platform radeon-vii --out " + path(std::string("m/") + c));
    ASSERT_EQ(b.code, 0) << c << ": " << b.err;
  }
  const Outcome r =
      cli("calibrate --platform radeon-vii --fit cu_lock_threshold --sweeps 1 --configs " GPURT_SOURCE_DIR
          "/examples/calibration-amd --measured " +
          path("m") + " --out " + path("fit.json") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const gpurt::Json out = gpurt::parse_json(r.out, "stdout");
  EXPECT_EQ(out["model"]["cu_lock_threshold"].get<double>(), 12);
  EXPECT_EQ(out["model"]["wave_release"].get<double>(), 0.73);  // not fitted: the base's
  EXPECT_EQ(out["residuals"].size(), 8u * 6);                   // the kernel spans are compared too
  EXPECT_EQ(out["evaluations"].get<int>(), 18);                 // 0..16, and the fit's own simulation
  const gpurt::Json doc = gpurt::load_json_file(path("fit.json"));
  EXPECT_EQ(gpurt::parse_platform(gpurt::JsonNode(doc, "fit.json")).model.cu_lock_threshold, 12);
  // Without --configs an AMD platform takes the AMD configs, relative to where it runs.
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(GPURT_SOURCE_DIR);
  const Outcome d = cli("calibrate --platform radeon-vii --fit cu_lock_threshold --sweeps 1 --measured " +
                        path("m") + " --out " + path("d.json") + " --json");
  std::filesystem::current_path(cwd);
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_EQ(gpurt::parse_json(d.out, "stdout")["residuals"], out["residuals"]);
  // The lone bound is read off the lone config, not searched: the preset's 511 back at once.
  const Outcome lone =
      cli("calibrate --platform radeon-vii --fit lone_kernel_blocks --configs " GPURT_SOURCE_DIR
          "/examples/calibration-amd --measured " +
          path("m") + " --out " + path("lone.json"));
  ASSERT_EQ(lone.code, 0) << lone.err;
  EXPECT_NE(lone.out.find("lone_kernel_blocks 511.0000 (measured: the most blocks of a lone kernel resident"),
            std::string::npos)
      << lone.out;
  EXPECT_NE(lone.out.find("(2 simulations of 4 configs)"), std::string::npos) << lone.out;
}

// What the fit cannot take, refused with exit 2 and nothing written: an empty --fit (or an empty
// item in it), a parameter named twice, a seed outside 0..2^64-1 (CLI11 alone wraps -1 to
// 2^64-1), an --out inside the measurements or the configs (the next fit would read it as a
// result file) or over the base platform file, and a config that turns the performance model off (no
// parameter acts on it).
TEST_F(CalibrateCli, RefusesWhatCannotBeFittedAndKeepsOutOfItsInputs) {
  for (const char* c : {"lock", "lone", "pace", "release"}) {
    const Outcome b = cli(std::string("bench " GPURT_SOURCE_DIR "/examples/calibration-amd/") + c +
                          ".json --backend sim --platform radeon-vii --out " + path(std::string("m/") + c));
    ASSERT_EQ(b.code, 0) << c << ": " << b.err;
  }
  const std::string base = "calibrate --platform radeon-vii --sweeps 1 --configs " GPURT_SOURCE_DIR
                           "/examples/calibration-amd --measured " +
                           path("m");
  const std::pair<std::string, std::string> refused[] = {
      {base + " --fit '' --out " + path("f.json"), "--fit has an empty value"},
      {base + " --fit kernel_jitter,,wave_release --out " + path("f.json"), "has an empty item"},
      {base + " --fit kernel_jitter,kernel_jitter --out " + path("f.json"),
       "fit = kernel_jitter: is named twice"},
      {base + " --fit kernel_jitter --seed -1 --out " + path("f.json"),
       "must be a whole number in 0..18446744073709551615"},
      {base + " --fit kernel_jitter --seed 18446744073709551616 --out " + path("f.json"),
       "not 18446744073709551616"},
      {base + " --fit kernel_jitter --out " + path("m/pace/f.json"), "lies in the input folder"},
  };
  for (const auto& [command, message] : refused) {
    const Outcome r = cli(command);
    EXPECT_EQ(r.code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << command << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("f.json"))) << command;
    EXPECT_FALSE(std::filesystem::exists(path("m/pace/f.json"))) << command;
  }
  // The base platform file is an input too: the fit would replace what it started from.
  const Outcome preset = cli("platforms radeon-vii --json");
  ASSERT_EQ(preset.code, 0) << preset.err;
  gpurt::write_file_atomically(path("base.json"), preset.out);
  const Outcome over = cli("calibrate --platform " + path("base.json") +
                           " --sweeps 1 --fit kernel_jitter --configs " GPURT_SOURCE_DIR
                           "/examples/calibration-amd --measured " +
                           path("m") + " --out " + path("base.json"));
  EXPECT_EQ(over.code, 2) << over.err;
  EXPECT_NE(over.err.find("is also an input"), std::string::npos) << over.err;
  EXPECT_EQ(gpurt::read_text_file(path("base.json")), preset.out);
  // A FIFO named like a config would block the read for ever: refused by name, nothing written.
  std::filesystem::create_directories(path("fifo-cfg"));
  std::filesystem::copy_file(GPURT_SOURCE_DIR "/examples/calibration-amd/pace.json",
                             path("fifo-cfg/pace.json"));
  ASSERT_EQ(::mkfifo(path("fifo-cfg/zz.json").c_str(), 0600), 0);
  const Outcome fifo = cli("calibrate --platform radeon-vii --sweeps 1 --fit kernel_jitter --configs " +
                           path("fifo-cfg") + " --measured " + path("m") + " --out " + path("f.json"));
  EXPECT_EQ(fifo.code, 2) << fifo.err;
  EXPECT_NE(fifo.err.find("zz.json is not a regular file"), std::string::npos) << fifo.err;
  EXPECT_FALSE(std::filesystem::exists(path("f.json")));
  // A config with "gpurt_sim": {"model": "ideal"}: named with the key.
  std::filesystem::create_directories(path("cfg"));
  for (const char* c : {"lock", "lone", "pace", "release"})
    std::filesystem::copy_file(std::string(GPURT_SOURCE_DIR "/examples/calibration-amd/") + c + ".json",
                               path(std::string("cfg/") + c + ".json"));
  gpurt::Json pace = gpurt::load_json_file(path("cfg/pace.json"));
  pace["gpurt_sim"] = gpurt::Json{{"model", "ideal"}};
  gpurt::write_file_atomically(path("cfg/pace.json"), pace.dump());
  const Outcome ideal = cli("calibrate --platform radeon-vii --sweeps 1 --fit kernel_jitter --configs " +
                            path("cfg") + " --measured " + path("m") + " --out " + path("f.json"));
  EXPECT_EQ(ideal.code, 2) << ideal.err;
  EXPECT_NE(
      ideal.err.find("pace.json: gpurt_sim.model = \"ideal\": the config turns the performance model off"),
      std::string::npos)
      << ideal.err;
  EXPECT_FALSE(std::filesystem::exists(path("f.json")));
}

// The h200 preset's memory_bandwidth is what `gpurt calibrate` fits to the random walks measured
// on an H200 (docs/data/h200/calibration; docs/measured-h200.md "Calibration on the H200"): 1,056
// walking blocks at once each took 7.5-10.3 ms (p10-p90) against 0.986 ms alone. Under fluid
// sharing every block of the loaded launch gets the same share, as measured, and every residual
// is below 0.23 in ln(simulated/measured) (rms 0.07; the worst, the loaded p10, is +25 %: the
// measured blocks spread 7.5-10.3 ms, the fluid ones all take 9.4); judged at each block's start, the blocks
// that start in one instant see the demand grow in turn and spread over 2.3-20.7 ms (rms 0.36, the miss that
// moved the model to fluid sharing).
TEST_F(CalibrateCli, TheH200PresetsBandwidthIsWhatItsMeasurementsGive) {
  std::filesystem::create_directories(path("configs"));
  std::filesystem::copy_file(GPURT_SOURCE_DIR "/examples/calibration/bandwidth.json",
                             path("configs/bandwidth.json"));
  const auto fit = [&](const std::string& platform) {
    const Outcome r =
        cli("calibrate --platform " + platform + " --fit memory_bandwidth,random_walk_ns_per_access" +
            " --configs " + path("configs") + " --measured " GPURT_SOURCE_DIR "/docs/data/h200/calibration" +
            " --out " + path("fit.json") + " --json");
    EXPECT_EQ(r.code, 0) << r.err;
    return gpurt::parse_json(r.out, "stdout");
  };
  const gpurt::Json fluid = fit("h200");
  const gpurt::Platform fitted =
      gpurt::parse_platform(gpurt::JsonNode(gpurt::load_json_file(path("fit.json")), "fit.json"));
  const double preset = gpurt::find_platform_preset("h200")->model.memory_bandwidth;
  EXPECT_NEAR(fitted.model.memory_bandwidth, preset, 0.01 * preset);
  EXPECT_NEAR(fluid["random_walk_ns_per_access"].get<double>(), 493, 2);
  EXPECT_LT(fluid["rms_log_error"].get<double>(), 0.1);
  for (const auto& r : fluid["residuals"])
    EXPECT_LT(std::abs(r["log_error"].get<double>()), 0.23) << r.dump();
  const gpurt::Json at_start = fit(
      write("at-start.json",
            R"({"format": "gpurt/platform@1", "preset": "h200", "model": {"memory_sharing": "at_start"}})"));
  EXPECT_GT(at_start["rms_log_error"].get<double>(), 0.3);
}

// `gpurt calibrate --check` fits nothing and writes nothing: it simulates the configs on the
// platform as given and prints the residuals, the check of a platform fitted elsewhere against
// measurements held out of its fit. Result files the sim backend wrote under a hidden model are
// that model's own draws (the same seed), so checking the hidden platform gives every residual
// exactly 0 (the check simulates each config as `gpurt simulate` does), and checking another
// model does not; on the H200's measured walks the h200 preset
// (fluid sharing) is within 0.1 rms and judging the demand at each block's start is not.
TEST_F(CalibrateCli, CheckComparesAPlatformAsGivenWithMeasurementsWithoutWriting) {
  const std::string hidden = write("hidden.json", R"({"format": "gpurt/platform@1", "preset": "rtx3060ti",
      "model": {"switch_cost": 0.2, "coresidence_cost": 0.1, "spread_cost": 0.03, "jitter": 0.08,
                "kernel_jitter": 0.05, "memory_bandwidth": 60}})");
  for (const char* c : {"spread", "switch"}) {
    const Outcome b =
        cli(std::string("bench " GPURT_SOURCE_DIR "/examples/calibration/") + c +
            ".json --backend sim --platform " + hidden + " --out " + path(std::string("m/") + c));
    ASSERT_EQ(b.code, 0) << c << ": " << b.err;
  }
  std::filesystem::create_directories(path("configs"));
  for (const char* c : {"spread", "switch"})
    std::filesystem::copy_file(std::string(GPURT_SOURCE_DIR "/examples/calibration/") + c + ".json",
                               path(std::string("configs/") + c + ".json"));
  const auto check = [&](const std::string& platform, const std::string& configs,
                         const std::string& measured) {
    const Outcome r = cli("calibrate --check --platform " + platform + " --configs " + configs +
                          " --measured " + measured + " --json");
    EXPECT_EQ(r.code, 0) << r.err;
    return gpurt::parse_json(r.out, "stdout");
  };
  const gpurt::Json own = check(hidden, path("configs"), path("m"));
  EXPECT_TRUE(own["check"].get<bool>());
  EXPECT_TRUE(own["fitted"].empty());
  EXPECT_EQ(own["residuals"].size(), 3u * 5);  // three instances, five statistics each
  for (const auto& r : own["residuals"]) {
    EXPECT_EQ(r["log_error"].get<double>(), 0.0) << r.dump();
    EXPECT_FALSE(r.contains("fitted_ns")) << r.dump();
  }
  const gpurt::Json other = check("rtx3060ti", path("configs"), path("m"));  // the preset's own model
  EXPECT_GT(other["rms_log_error"].get<double>(), 0.05);
  // Nothing written: the only .json file in the test's folder is the one the test put there.
  std::size_t json_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(path(".")))
    json_files += e.is_regular_file() && e.path().extension() == ".json" ? 1u : 0u;
  EXPECT_EQ(json_files, 1u);  // hidden.json

  // The H200's measured walks (docs/data/h200/calibration/bandwidth), with the config's own
  // 500-ns latency (the fit's is 492.9).
  std::filesystem::create_directories(path("walks"));
  std::filesystem::copy_file(GPURT_SOURCE_DIR "/examples/calibration/bandwidth.json",
                             path("walks/bandwidth.json"));
  const std::string measured = GPURT_SOURCE_DIR "/docs/data/h200/calibration";
  EXPECT_LT(check("h200", path("walks"), measured)["rms_log_error"].get<double>(), 0.1);
  const gpurt::Json at_start = check(
      write("at-start.json",
            R"({"format": "gpurt/platform@1", "preset": "h200", "model": {"memory_sharing": "at_start"}})"),
      path("walks"), measured);
  EXPECT_GT(at_start["rms_log_error"].get<double>(), 0.3);

  // What --check does not take (--sweeps counts a fit's passes), and --out without it: exit 2, no file.
  const auto refused = [&](const std::string& args, const std::string& names) {
    const Outcome o =
        cli("calibrate --platform h200 --configs " + path("walks") + " --measured " + measured + " " + args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_NE(o.err.find(names), std::string::npos) << o.err;
    EXPECT_FALSE(std::filesystem::exists(path("x.json"))) << args;
  };
  refused("--check --fit memory_bandwidth --out " + path("x.json"), "--fit");
  refused("--check --out " + path("x.json"), "--out = " + path("x.json"));
  refused("--check --sweeps 3", "--sweeps = 3");
  refused("", "--out");

  // The examiner's own result files (no "gpurt" block, so no stated SM count) are checked as
  // gpurt's are: the switch config's blocks all ran on SMs 0-1 of 38, which is no other GPU.
  std::filesystem::create_directories(path("plain/switch"));
  for (const auto& e : std::filesystem::directory_iterator(path("m/switch"))) {
    gpurt::Json doc = gpurt::load_json_file(e.path().string());
    doc.erase("gpurt");
    std::ofstream(path("plain/switch/" + e.path().filename().string())) << doc.dump();
  }
  std::filesystem::create_directories(path("switch-only"));
  std::filesystem::copy_file(path("configs/switch.json"), path("switch-only/switch.json"));
  const gpurt::Json plain = check(hidden, path("switch-only"), path("plain"));
  EXPECT_EQ(plain["residuals"].size(), 2u * 5);
  for (const auto& r : plain["residuals"]) EXPECT_EQ(r["log_error"].get<double>(), 0.0) << r.dump();

  // On an AMD GPU the check compares the kernel spans too, as the AMD fit does: the dispatch
  // rules show there (the lone config's span is five times longer with lone_kernel_blocks).
  std::filesystem::create_directories(path("amd"));
  std::filesystem::copy_file(GPURT_SOURCE_DIR "/examples/calibration-amd/lone.json", path("amd/lone.json"));
  ASSERT_EQ(
      cli("bench " + path("amd/lone.json") + " --backend sim --platform radeon-vii --out " + path("a/lone"))
          .code,
      0);
  const gpurt::Json amd = check("radeon-vii", path("amd"), path("a"));
  EXPECT_EQ(amd["residuals"].size(), 8u);  // one instance: five block statistics, three span ones
  for (const auto& r : amd["residuals"]) EXPECT_EQ(r["log_error"].get<double>(), 0.0) << r.dump();
  const gpurt::Json no_bound = check(
      write("no-bound.json",
            R"({"format": "gpurt/platform@1", "preset": "radeon-vii", "model": {"lone_kernel_blocks": 0}})"),
      path("amd"), path("a"));
  EXPECT_GT(no_bound["rms_log_error"].get<double>(), 0.3);
}
