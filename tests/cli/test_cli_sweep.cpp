// `gpurt sweep rtgpu|pbs|merge` as a user runs them: thread counts, resume after a cut file,
// shards + merge, plots, and bad input (exit 2, nothing written).
#include <gtest/gtest.h>

#include "cli_fixture.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpurt/core/io.hpp"

namespace fs = std::filesystem;

namespace {

using gpurt::test::Outcome;

class SweepCli : public gpurt::test::CliTest {};

// Small enough to run in well under a second: 3 utilisations x 6 sets x 4 methods.
const std::string kRtgpu = "sweep rtgpu --sets 6 --seed 3 --u-min 0.4 --u-max 1.2 --u-step 0.4";
// Figure 4 on 4 utilisations x 3 sets, three policies each.
const std::string kPbs = "sweep pbs --figure 4 --sets 3 --u-min 0.5 --u-max 2 --u-step 0.5";

TEST_F(SweepCli, RtgpuCsvKeepsItsColumnsAndIsTheSameForOneAndTwoThreads) {
  const Outcome one = cli(kRtgpu + " --threads 1 --out " + path("one.csv"));
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(one.out, "");
  const Outcome two = cli(kRtgpu + " --threads 2");
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_EQ(two.out, read("one.csv"));
  EXPECT_EQ(two.out.substr(0, two.out.find('\n')),
            "point,points,utilization,sets,rtgpu,self-suspension,stgm,gcaps-rr");
  EXPECT_NE(two.out.find("\n2,3,1.2,6,"), std::string::npos) << two.out;
}

TEST_F(SweepCli, PbsFigure4ResumesFromACutFileToTheSameCsv) {
  const Outcome full = cli(kPbs + " --threads 2 --out " + path("full.csv"));
  ASSERT_EQ(full.code, 0) << full.err;
  const std::string csv = read("full.csv");
  ASSERT_EQ(csv.substr(0, csv.find('\n')),
            "point,points,scenario,utilization,tasks,sets,gpusched,edf_serial,edf_parallel,gpusched_unknown");
  // Keep the header, point 0, and half of point 1's line: what a killed run leaves.
  const std::size_t second = csv.find('\n', csv.find('\n') + 1);
  std::ofstream(path("cut.csv")) << csv.substr(0, second + 1 + 6);
  const Outcome resumed = cli(kPbs + " --threads 1 --progress --out " + path("cut.csv"));
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(read("cut.csv"), csv);
  EXPECT_NE(resumed.err.find("sweep: 4/4 points done (1 resumed)"), std::string::npos) << resumed.err;
  // Kept rows are said even with --quiet. The cut file was written by hand, without the settings
  // file a run writes beside its CSV, so its rows' --seed cannot be checked, and the note says so.
  const Outcome again = cli(kPbs + " --threads 1 --quiet --seed 9 --out " + path("cut.csv"));
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("gpurt: note: 4 of 4 points kept from " + path("cut.csv") +
                           " (an earlier run's rows, not checked: " + path("cut.csv.settings.json") +
                           " is missing"),
            std::string::npos)
      << again.err;
  EXPECT_FALSE(fs::exists(path("cut.csv.settings.json")));  // rows of unknown settings stay unblessed
}

// Beside its CSV a sweep writes the settings its rows came from (every option of the command,
// as given or by default, and a digest of each file it reads); a run that resumes from the rows
// must have the same, or it is refused (exit 2, both files untouched), naming what differs.
TEST_F(SweepCli, ResumeChecksTheSettingsTheRowsCameFrom) {
  ASSERT_EQ(cli(kPbs + " --quiet --out " + path("a.csv")).code, 0);
  const std::string csv = read("a.csv"), settings = read("a.csv.settings.json");
  EXPECT_NE(settings.find("\"format\": \"gpurt/sweep-settings@1\""), std::string::npos) << settings;
  EXPECT_NE(settings.find("\"--seed\": \"1\""), std::string::npos) << settings;
  EXPECT_EQ(settings.find("--threads"), std::string::npos) << settings;  // no effect on a row
  // The default given explicitly, and another thread count: the same settings.
  const Outcome same = cli(kPbs + " --seed 1 --threads 1 --quiet --out " + path("a.csv"));
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_NE(same.err.find("4 of 4 points kept from " + path("a.csv") + " (computed with this run's settings"),
            std::string::npos)
      << same.err;
  const Outcome seed = cli(kPbs + " --seed 9 --quiet --out " + path("a.csv"));
  EXPECT_EQ(seed.code, 2);
  EXPECT_NE(
      seed.err.find(path("a.csv.settings.json") + ": settings.--seed = 1: this run has 9; the rows of " +
                    path("a.csv") + " came from"),
      std::string::npos)
      << seed.err;
  const Outcome sets =
      cli("sweep pbs --figure 4 --sets 4 --u-min 0.5 --u-max 2 --u-step 0.5 --out " + path("a.csv"));
  EXPECT_EQ(sets.code, 2);
  EXPECT_NE(sets.err.find("settings.--sets = 3: this run has 4"), std::string::npos) << sets.err;
  EXPECT_EQ(read("a.csv"), csv);
  EXPECT_EQ(read("a.csv.settings.json"), settings);
  // A file the sweep reads is part of its settings: an edited platform file is another run.
  write("p.json", R"({"preset": "rtx3060ti"})");
  const std::string fft = "sweep fft --sizes 12 --tasks 1 --trials 1 --jobs 2 --runs 1 --quiet --platform " +
                          path("p.json") + " --out " + path("f.csv");
  ASSERT_EQ(cli(fft).code, 0);
  write("p.json", R"({"preset": "rtx3060ti", "model": {"switch_cost": 0}})");
  const Outcome edited = cli(fft);
  EXPECT_EQ(edited.code, 2);
  EXPECT_NE(edited.err.find(path("f.csv.settings.json") + ": inputs." + path("p.json") + " = fnv1a64:"),
            std::string::npos)
      << edited.err;
  EXPECT_NE(edited.err.find("(the file changed)"), std::string::npos) << edited.err;
  // A number given is recorded as given: a default's text has 6 digits, which would take
  // 5.0000001 for 5.
  const Outcome gap = cli(fft + " --max-gap-us 5.0000001");
  EXPECT_EQ(gap.code, 2);
  EXPECT_NE(gap.err.find("settings.--max-gap-us = 5: this run has 5.0000001"), std::string::npos) << gap.err;
  // A flag is the value it sets, however it is spelled; a limit that only decides whether the run
  // finishes is no setting, so raising it after a failure resumes the rows the failure kept.
  const std::string rtgpu = kRtgpu + " --quiet --threads 1 --out " + path("r.csv");
  EXPECT_EQ(cli(rtgpu + " --max-analyses 50").code, 1);
  const Outcome raised = cli(rtgpu + " --max-analyses 200 --one-copy=false");
  EXPECT_EQ(raised.code, 0) << raised.err;
  EXPECT_NE(
      raised.err.find("1 of 3 points kept from " + path("r.csv") + " (computed with this run's settings"),
      std::string::npos)
      << raised.err;
  EXPECT_NE(read("r.csv.settings.json").find("\"--one-copy\": \"false\""), std::string::npos);
  EXPECT_EQ(read("r.csv.settings.json").find("--max-analyses"), std::string::npos);
  fs::remove(path("r.csv"));
  fs::remove(path("r.csv.settings.json"));
  // A settings file that is not one is bad input, named.
  write("a.csv.settings.json",
        R"({"format": "gpurt/sweep-settings@1", "sweep": "pbs", "settings": {}, "x": 1})");
  const Outcome bad = cli(kPbs + " --quiet --out " + path("a.csv"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(path("a.csv.settings.json") + ": x"), std::string::npos) << bad.err;
  EXPECT_EQ(read("a.csv"), csv);
  // A CSV cut before its first complete row holds no row (the runner drops a cut line): a run
  // with other settings replaces the settings file instead of refusing.
  const std::string header = csv.substr(0, csv.find('\n') + 1);
  write("a.csv", header + "0,4,sm");
  const Outcome fresh = cli(kPbs + " --seed 9 --quiet --out " + path("a.csv"));
  EXPECT_EQ(fresh.code, 0) << fresh.err;
  EXPECT_NE(read("a.csv.settings.json").find("\"--seed\": \"9\""), std::string::npos);
  // A file named by bytes that are not UTF-8 is recorded by its bytes, in hex.
  const std::string latin1 = path("cfg\xff.json");
  fs::copy_file(GPURT_SOURCE_DIR "/examples/amd/isolated_mm1024.json", latin1);
  ASSERT_EQ(cli("sweep cu-masks " + latin1 + " --sizes 15 --quiet --out " + path("c.csv")).code, 0);
  EXPECT_NE(read("c.csv.settings.json").find("\"config\": \"bytes:"), std::string::npos)
      << read("c.csv.settings.json");
  // A run that fails before any row leaves neither file.
  const Outcome items = cli(kRtgpu + " --max-items 1 --out " + path("r.csv"));
  EXPECT_EQ(items.code, 2);
  EXPECT_FALSE(fs::exists(path("r.csv")));
  EXPECT_FALSE(fs::exists(path("r.csv.settings.json")));
}

TEST_F(SweepCli, ShardsMergeToTheUnshardedCsv) {
  ASSERT_EQ(cli(kRtgpu + " --out " + path("all.csv")).code, 0);
  ASSERT_EQ(cli(kRtgpu + " --shard 1/2 --out " + path("s1.csv")).code, 0);
  ASSERT_EQ(cli(kRtgpu + " --shard 2/2 --out " + path("s2.csv")).code, 0);
  const Outcome merged =
      cli("sweep merge " + path("s2.csv") + " " + path("s1.csv") + " --out " + path("m.csv"));
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(read("m.csv"), read("all.csv"));
  // --shard is not a setting: the shards' settings are the unsharded run's, and so the merged file's.
  EXPECT_EQ(read("m.csv.settings.json"), read("all.csv.settings.json"));
}

// A config read from a pipe cannot be digested: its rows are never resumed, since what the next
// run reads from the pipe cannot be compared with it (exit 2), even when both runs read the same
// bytes. The FIFO's writer gives up after 20 s if gpurt never opens it, so the test cannot hang.
TEST_F(SweepCli, RowsFromAPipeAreNeverResumed) {
  const std::string config = gpurt::read_text_file(GPURT_SOURCE_DIR "/examples/amd/isolated_mm1024.json");
  const std::string fifo = path("cfg.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto run = [&] {
    std::thread writer([&] {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      int fd = -1;
      while ((fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK)) < 0 &&
             std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (fd < 0) return;
      ::fcntl(fd, F_SETFL, 0);  // blocking writes from here
      std::size_t done = 0;
      while (done < config.size()) {
        const ssize_t n = ::write(fd, config.data() + done, config.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
      }
      ::close(fd);
    });
    const Outcome r = cli("sweep cu-masks " + fifo + " --sizes 15 --quiet --out " + path("p.csv"));
    writer.join();
    return r;
  };
  const Outcome first = run();
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_NE(read("p.csv.settings.json").find("not a regular file: cannot be checked"), std::string::npos);
  const std::string csv = read("p.csv");
  const Outcome again = run();
  EXPECT_EQ(again.code, 2) << again.err;
  EXPECT_NE(again.err.find(path("p.csv.settings.json") + ": inputs." + fifo), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("cannot be compared"), std::string::npos) << again.err;
  EXPECT_EQ(read("p.csv"), csv);
  // Standard input ("-") alike, even beside a regular file named "-" (which the run does not read).
  write("-", "junk");
  const std::string in_dir = "cd " + path("") + " && " + GPURT_CLI +
                             " sweep cu-masks - --sizes 15 --quiet --out s.csv < " +
                             GPURT_SOURCE_DIR "/examples/amd/isolated_mm1024.json";
  ASSERT_EQ(std::system((in_dir + " 2>/dev/null").c_str()), 0);
  EXPECT_NE(read("s.csv.settings.json").find("\"-\": \"not a regular file: cannot be checked\""),
            std::string::npos)
      << read("s.csv.settings.json");
}

// Shards of one sweep ran one command line: merge refuses shards whose settings differ, or a shard
// without a settings file when another has one (exit 2, nothing written).
TEST_F(SweepCli, MergeRefusesShardsOfOtherSettings) {
  ASSERT_EQ(cli(kRtgpu + " --shard 1/2 --out " + path("s1.csv")).code, 0);
  std::string other = kRtgpu;
  other.replace(other.find("--seed 3"), 8, "--seed 4");
  ASSERT_EQ(cli(other + " --shard 2/2 --out " + path("s2.csv")).code, 0);
  const std::string merge =
      "sweep merge " + path("s1.csv") + " " + path("s2.csv") + " --out " + path("m.csv");
  const Outcome seed = cli(merge);
  EXPECT_EQ(seed.code, 2);
  EXPECT_NE(seed.err.find(path("s2.csv.settings.json") +
                          ": settings.--seed = 4: " + path("s1.csv.settings.json") + " has 3"),
            std::string::npos)
      << seed.err;
  ASSERT_EQ(cli(kRtgpu + " --shard 2/2 --out " + path("s2.csv")).code, 2);  // resume refuses too
  fs::remove(path("s2.csv"));
  ASSERT_EQ(cli(kRtgpu + " --shard 2/2 --out " + path("s2.csv")).code, 0);
  // --out (or its settings file) over a file merge reads: refused before anything is written.
  const Outcome over =
      cli("sweep merge " + path("s1.csv") + " " + path("s2.csv") + " --out " + path("s1.csv.settings.json"));
  EXPECT_EQ(over.code, 2);
  EXPECT_NE(over.err.find("is also an input"), std::string::npos) << over.err;
  EXPECT_NE(read("s1.csv.settings.json").find("sweep-settings@1"), std::string::npos);
  fs::remove(path("s2.csv.settings.json"));
  // Shards without settings files: merged unchecked, said on stderr, and a settings file an earlier
  // run left beside --out (describing other rows) is removed.
  fs::remove(path("s1.csv.settings.json"));
  write("old.csv.settings.json", "{}");
  const Outcome bare =
      cli("sweep merge " + path("s1.csv") + " " + path("s2.csv") + " --out " + path("old.csv"));
  EXPECT_EQ(bare.code, 0) << bare.err;
  EXPECT_NE(bare.err.find("no shard has a settings file"), std::string::npos) << bare.err;
  EXPECT_FALSE(fs::exists(path("old.csv.settings.json")));
  ASSERT_EQ(cli(kRtgpu + " --shard 1/2 --out " + path("n1.csv")).code, 0);
  const Outcome unknown =
      cli("sweep merge " + path("n1.csv") + " " + path("s2.csv") + " --out " + path("m.csv"));
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find(path("s2.csv") + ": has no settings file"), std::string::npos) << unknown.err;
  EXPECT_FALSE(fs::exists(path("m.csv")));
  EXPECT_FALSE(fs::exists(path("m.csv.settings.json")));
}

TEST_F(SweepCli, MergeErrorsExitTwoAndWriteNothing) {
  ASSERT_EQ(cli(kRtgpu + " --shard 1/2 --out " + path("s1.csv")).code, 0);
  ASSERT_EQ(cli(kPbs + " --shard 2/2 --out " + path("p2.csv")).code, 0);
  const Outcome header =
      cli("sweep merge " + path("s1.csv") + " " + path("p2.csv") + " --out " + path("m.csv"));
  EXPECT_EQ(header.code, 2);
  EXPECT_NE(header.err.find("p2.csv: header = point,points,scenario"), std::string::npos) << header.err;
  EXPECT_NE(header.err.find("differs from " + path("s1.csv")), std::string::npos) << header.err;
  const Outcome dup = cli("sweep merge " + path("s1.csv") + " " + path("s1.csv") + " --out " + path("m.csv"));
  EXPECT_EQ(dup.code, 2);
  EXPECT_NE(dup.err.find("line 2.point = 0: duplicate"), std::string::npos) << dup.err;
  const Outcome missing = cli("sweep merge " + path("s1.csv"));
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.out, "");
  EXPECT_NE(missing.err.find("1 of 3 points missing from the inputs: 1 "), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(path("m.csv")));
}

TEST_F(SweepCli, PlotsAreSvgChartsOfTheCsv) {
  const Outcome r = cli(kRtgpu + " --out " + path("r.csv") + " --plot " + path("r.svg"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = read("r.svg");
  EXPECT_EQ(svg.rfind("<svg", 0) == 0 || svg.rfind("<?xml", 0) == 0, true);
  for (const char* label :
       {"rtgpu", "self-suspension", "stgm", "acceptance ratio", "analysis, 6 task sets"}) {
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  }
  const Outcome c =
      cli("sweep pbs --figure 5c --sets 3 --max-vertices 100000 --quiet --plot " + path("c.svg"));
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(read("c.svg").find("vertices_no_merge"), std::string::npos);
  // A tree stopped at the cap is drawn at the cap: the chart says so, with the cap.
  EXPECT_NE(read("c.svg").find("vertices_no_merge stops at --max-vertices 100000"), std::string::npos);
}

TEST_F(SweepCli, BadOptionsExitTwoBeforeWritingAnything) {
  for (const std::string& args :
       {kRtgpu + " --shard 3/2", kRtgpu + " --shard x", kRtgpu + " --shard 1/2 --plot " + path("p.svg"),
        std::string("sweep rtgpu --u-step 0"), std::string("sweep pbs --figure 7"), kPbs + " --scenario huge",
        kPbs + " --tasks 1",  // utilisation 2 from 1 task
        kPbs + " --tasks 2",  // utilisation 2 from 2 tasks: every task at 1, never drawn (0 sets)
        std::string("sweep rtgpu --u-min 1e-320"), std::string("sweep rtgpu --suspension-scale 1e-10"),
        std::string("sweep nn --tables 6.3:small --seconds 0.01 --memory-bandwidth 1e-9"),
        std::string("sweep nn --tables 6.1,6.1"), std::string("sweep nn --tables 6.3,6.3:small"),
        std::string("sweep nn --tables 6.2 --launch-cpu-us 0 --host-per-image-us 500"),
        // A set the generator cannot reach fails inside the sweep: the option named is the sweep's,
        // and the file this run created holds no row, so it is removed.
        std::string("sweep rtgpu --sets 1 --u-min 0.01 --u-max 0.01 --suspension-scale 1e6"),
        kRtgpu + " --search brute", kRtgpu + " --max-analyses 0"}) {
    const Outcome r = cli(args + " --out " + path("o.csv"));
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(": --"), std::string::npos) << args << ": " << r.err;  // names the option
    EXPECT_EQ(r.err.find("--utilization"), std::string::npos) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(path("o.csv"))) << args;
    EXPECT_FALSE(fs::exists(path("o.csv.settings.json"))) << args;  // written at the start, removed with it
  }
  // Options that do nothing without another are refused (CLI11: exit 2, nothing written).
  for (const std::string& args :
       {kRtgpu + " --title T", kPbs + " --title T", kRtgpu + " --progress --quiet"}) {
    const Outcome r = cli(args + " --out " + path("o.csv"));
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(path("o.csv"))) << args;
  }
  // The exact search's limit and the greedy search are the sweep's own options: a limit of one
  // analysis stops the sweep (exit 1, naming the options to use), the greedy search runs.
  const Outcome limited = cli(kRtgpu + " --max-analyses 1 --quiet");
  EXPECT_EQ(limited.code, 1) << limited.err;
  EXPECT_NE(limited.err.find("--max-analyses"), std::string::npos) << limited.err;
  EXPECT_EQ(limited.err.find("gpurt analyze rtgpu"), std::string::npos) << limited.err;
  const Outcome greedy = cli(kRtgpu + " --search greedy --quiet");
  EXPECT_EQ(greedy.code, 0) << greedy.err;
  EXPECT_EQ(greedy.out.substr(0, greedy.out.find('\n')),
            "point,points,utilization,sets,rtgpu,self-suspension,stgm,gcaps-rr");
  // An option of another figure is refused, not ignored (Figure 5b sweeps task counts at U = 1).
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"sweep pbs --figure 5b --u-max 3",
            "--u-max = 3: does not apply to --figure 5b (only to figure 4, 5a)"},
           {"sweep pbs --figure 5b --tasks 4",
            "--tasks = 4: does not apply to --figure 5b (only to figure 4, 5a, 5c)"},
           {"sweep pbs --figure 4 --tasks-max 6",
            "--tasks-max = 6: does not apply to --figure 4 (only to figure 5b)"},
           {"sweep pbs --figure 5c --u-step 0.5", "--u-step = 0.5: does not apply to --figure 5c"}}) {
    const Outcome r = cli(args + " --out " + path("o.csv"));
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(path("o.csv"))) << args;
  }
  // Resuming into another sweep's file is refused, the file left as it was.
  std::ofstream(path("other.csv")) << "point,points,x\n0,1,5\n";
  const Outcome r = cli(kRtgpu + " --out " + path("other.csv"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("other.csv: header = point,points,x: is not this sweep's header"), std::string::npos)
      << r.err;
  EXPECT_EQ(read("other.csv"), "point,points,x\n0,1,5\n");
}

// Outputs are checked before any work: two options at one file (the CSV would be overwritten by
// the chart), a FIFO or device as --out (read back as a partial sweep without end, or replaced
// by a file), and a resume file larger than any sweep's CSV.
TEST_F(SweepCli, OutputsAreFilesOfTheirOwn) {
  const std::string fft = "sweep fft --sizes 10 --tasks 1-2 --trials 1 --jobs 1 --quiet";
  const std::pair<std::string, std::string> refused[] = {
      {kRtgpu + " --out " + path("a.csv") + " --plot " + path("a.csv"), "--plot"},
      {fft + " --out " + path("a.csv") + " --plot-throughput " + path("a.csv"), "--plot-throughput"},
      {fft + " --plot " + path("p.svg") + " --plot-throughput " + path("p.svg") + " --out " + path("a.csv"),
       "--plot-throughput"},
      {fft + " --shard 1/2 --plot-throughput " + path("t.svg") + " --out " + path("a.csv"),
       "a shard holds part"}};
  for (const auto& [args, message] : refused) {
    const Outcome r = cli(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(path("a.csv"))) << args;
    EXPECT_FALSE(fs::exists(path("p.svg"))) << args;
  }
  ASSERT_EQ(std::system(("mkfifo " + path("fifo")).c_str()), 0);
  const Outcome fifo = cli(kRtgpu + " --out " + path("fifo"));
  EXPECT_EQ(fifo.code, 2) << fifo.err;
  EXPECT_NE(fifo.err.find("exists and is not a regular file"), std::string::npos) << fifo.err;
  EXPECT_TRUE(fs::is_fifo(path("fifo")));
  const Outcome device = cli(kRtgpu + " --out /dev/null");
  EXPECT_EQ(device.code, 2) << device.err;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // A file without a complete line that is not the start of the header (a kill before the
  // header was written leaves one that is) is someone's file: left alone.
  std::ofstream(path("notes.txt")) << "remember the milk";
  const Outcome notes = cli(kRtgpu + " --out " + path("notes.txt"));
  EXPECT_EQ(notes.code, 2) << notes.err;
  EXPECT_EQ(read("notes.txt"), "remember the milk");
  std::ofstream(path("cut.csv")) << "point,poi";
  EXPECT_EQ(cli(kRtgpu + " --out " + path("cut.csv")).code, 0);
  // A sparse file of 300 MiB takes no disk, and is no sweep's CSV.
  std::ofstream{path("big.csv")}.close();
  fs::resize_file(path("big.csv"), std::uintmax_t{300} << 20);
  const Outcome big = cli(kRtgpu + " --out " + path("big.csv"));
  EXPECT_EQ(big.code, 2) << big.err;
  EXPECT_NE(big.err.find("more than a sweep's CSV could be"), std::string::npos) << big.err;
  EXPECT_EQ(fs::file_size(path("big.csv")), std::uintmax_t{300} << 20);
}

}  // namespace

// Issue 16: a resumed CSV is checked cell by cell; a malformed number is refused, not kept.
TEST_F(SweepCli, ResumeRefusesAMalformedValueCell) {
  ASSERT_EQ(cli(kRtgpu + " --out " + path("all.csv")).code, 0);
  const std::string csv = read("all.csv");
  // Keep the header and point 0 with its first value replaced by "nan0.5".
  const std::size_t first = csv.find('\n');
  const std::size_t second = csv.find('\n', first + 1);
  std::string row = csv.substr(first + 1, second - first - 1);  // 0,3,0.4,6,a,b,c
  std::size_t comma = 0;
  for (int i = 0; i < 4; ++i) comma = row.find(',', comma) + 1;
  row = row.substr(0, comma) + "nan0.5" + row.substr(row.find(',', comma));
  write("bad.csv", csv.substr(0, first + 1) + row + "\n");
  const Outcome r = cli(kRtgpu + " --out " + path("bad.csv"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("line 2.rtgpu = nan0.5"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

// Issue 16: a range that is not finite or has too many points is refused before any file.
TEST_F(SweepCli, RangeMustBeFiniteAndBounded) {
  for (const std::string& args : {std::string("--u-max nan"), std::string("--u-min inf"),
                                  std::string("--u-step 1e-12"), std::string("--u-step nan")}) {
    const Outcome r = cli("sweep rtgpu --sets 1 " + args + " --out " + path("x.csv"));
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("gpurt: error: ", 0), 0u) << r.err;
    EXPECT_LT(r.err.size(), 400u) << r.err;
    EXPECT_FALSE(fs::exists(path("x.csv"))) << args;
  }
  const Outcome many = cli("sweep pbs --figure 4 --u-step 1e-6 --out " + path("p.csv"));
  EXPECT_EQ(many.code, 2) << many.err;
  EXPECT_NE(many.err.find("more than 10000"), std::string::npos) << many.err;
  // Points round to 10^-9: a step of 1e-10 gave five equal keys and one above --u-max.
  const Outcome tiny = cli("sweep rtgpu --sets 2 --u-min 1 --u-max 1.0000000005 --u-step 1e-10");
  EXPECT_EQ(tiny.code, 2) << tiny.err;
  EXPECT_NE(tiny.err.find("the step must be at least 1e-6"), std::string::npos) << tiny.err;
  // Sets x points within their own limits may still be more work than memory holds (10^10
  // items ran out of memory, exit 1, leaving a header-only file): refused, raisable.
  const Outcome items =
      cli("sweep rtgpu --sets 1000000 --u-min 0.001 --u-max 10 --u-step 0.001 --out " + path("big.csv"));
  EXPECT_EQ(items.code, 2) << items.err;
  EXPECT_NE(items.err.find("--max-items = 20000000: the sweep has 10000000000 work items"), std::string::npos)
      << items.err;
  EXPECT_FALSE(fs::exists(path("big.csv")));
  EXPECT_EQ(cli("sweep rtgpu --sets 3 --u-min 0.5 --u-max 0.6 --u-step 0.1 --max-items 5").code, 2);
  EXPECT_EQ(cli("sweep rtgpu --sets 3 --u-min 0.5 --u-max 0.6 --u-step 0.1 --max-items 6").code, 0);
}

// Merge refuses a number past the double range as resume does (1e999 is infinite), and a point
// that measured nothing has empty statistics, not zeros that a chart would draw.
TEST_F(SweepCli, MergeRefusesInfiniteNumbersAndEmptyPointsHaveNoStatistics) {
  ASSERT_EQ(cli(kRtgpu + " --out " + path("s.csv")).code, 0);
  std::string text = read("s.csv");
  const auto line = text.find('\n', text.find('\n') + 1);  // the end of the first row
  const auto comma = text.rfind(',', line);
  text.replace(comma + 1, line - comma - 1, "1e999");
  write("inf.csv", text);
  const Outcome r = cli("sweep merge " + path("inf.csv"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("= 1e999: is not a finite number"), std::string::npos) << r.err;
  // A run shorter than a job: the warm-up jobs still run to the barrier (the measured time
  // starts there), and each task's one job begun within the duration is measured.
  const Outcome nn = cli("sweep nn --seconds 0.000001 --tables 6.2 --quiet");
  ASSERT_EQ(nn.code, 0) << nn.err;
  EXPECT_NE(nn.out.find("\n0,6,simulated,6.2,medium,none,unmanaged,all,1,"), std::string::npos) << nn.out;
  EXPECT_EQ(nn.out.find(",0,,,,"), std::string::npos) << nn.out;
}

// `gpurt sweep nn --tables 6.2` (Dissertation Table 6.2, SIMULATED): six scenarios, and per-kernel
// locking costs the medium task alone its 104 synchronous launches (30 + 30 us each) plus its
// kernels, which the host's launches no longer hide (4.904 ms), while per-job locking alone costs
// nothing; a bad table, stall or host option exits 2 and writes nothing.
TEST_F(SweepCli, NnTable62PerKernelLockingCostsTheLaunches) {
  const Outcome r = cli("sweep nn --tables 6.2 --seconds 0.3 --threads 2 --out " + path("nn.csv"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string csv = read("nn.csv");
  ASSERT_EQ(csv.substr(0, csv.find('\n')),
            "point,points,backend,table,task,competitors,management,partition_cus,jobs,min_ms,max_ms,mean_ms,"
            "stddev_ms");
  std::map<std::string, double> mean;  // "competitors/management" -> mean_ms
  std::istringstream lines(csv.substr(csv.find('\n') + 1));
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cell;
    std::istringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) cell.push_back(c);
    ASSERT_EQ(cell.size(), 13u) << line;
    EXPECT_EQ(cell[3], "6.2");
    mean[cell[5] + "/" + cell[6]] = std::stod(cell[11]);
  }
  ASSERT_EQ(mean.size(), 6u) << csv;
  EXPECT_NEAR(mean["none/per-kernel"] - mean["none/unmanaged"], 104 * 0.060 + 4.904, 0.5);
  EXPECT_NEAR(mean["none/per-job"], mean["none/unmanaged"], 0.05);
  EXPECT_GT(mean["1 medium/per-job"], mean["1 medium/unmanaged"]);
  for (const char* args : {"--tables 6.4", "--tables 6.3:huge", "--stall-ms -1", "--stall-probability 2",
                           "--launch-cpu-us -1"}) {
    const Outcome bad = cli("sweep nn --seconds 0.1 " + std::string(args) + " --out " + path("bad.csv"));
    EXPECT_EQ(bad.code, 2) << args;
    EXPECT_NE(bad.err.find("--"), std::string::npos) << args << ": " << bad.err;
    EXPECT_FALSE(fs::exists(path("bad.csv"))) << args;
  }
  // Another AMD platform: 4-way partitions are a quarter of its CUs (48: 12 each), and Table 6.3's
  // 15-, 20- and 30-CU partitions need more than 30 CUs (refused before anything is written).
  const std::string vii = cli("platforms radeon-vii --json").out;
  for (const int cus : {48, 16}) {
    std::string platform = vii;
    platform.replace(platform.find("\"sms\": 60"), 9, "\"sms\": " + std::to_string(cus));
    write("amd" + std::to_string(cus) + ".json", platform);
  }
  const Outcome four =
      cli("sweep nn --platform " + path("amd48.json") + " --tables 6.1 --seconds 0.01 --quiet");
  ASSERT_EQ(four.code, 0) << four.err;
  EXPECT_NE(four.out.find(",6.1,small,3 identical,4-way,12,"), std::string::npos) << four.out;
  const Outcome small =
      cli("sweep nn --platform " + path("amd16.json") + " --tables 6.2,6.3:none --out " + path("bad.csv"));
  EXPECT_EQ(small.code, 2) << small.err;
  EXPECT_NE(small.err.find("has 16 CUs: table 6.3 gives the measured task 15, 20 or 30 CUs"),
            std::string::npos)
      << small.err;
  EXPECT_FALSE(fs::exists(path("bad.csv")));
}

// `gpurt sweep cu-masks` (Dissertation Figure 4.9, SIMULATED): isolated MM1024 (1,024 blocks of
// 0.570 ms, two per CU), with the ideal model (blocks free their CU at their end). On 15 SE-packed
// CUs (one whole SE) it takes ceil(1024 / 30) = 35 waves, 21.98 ms; on 16 the ACE deals every
// other block to the SE holding one CU, which runs 512 of them two at a time: 256 x 0.570 =
// 145.9 ms -- the jump at 16 CUs. Bad options exit 2, nothing written.
TEST_F(SweepCli, CuMasksShowsTheSePackedJumpAt16Cus) {
  const Outcome r =
      cli("sweep cu-masks " + std::string(GPURT_SOURCE_DIR "/examples/amd/isolated_mm1024.json") +
          " --sizes 15,16 --layouts se-packed --model ideal --out " + path("cu.csv"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string csv = read("cu.csv");
  ASSERT_EQ(csv.substr(0, csv.find('\n')),
            "point,points,backend,instance,cus,se-packed_iterations,se-packed_mean_ms,se-packed_max_ms");
  std::vector<double> mean;
  std::istringstream lines(csv.substr(csv.find('\n') + 1));
  for (std::string line; std::getline(lines, line);) {  // ...,mean_ms,max_ms
    const std::size_t last = line.rfind(','), before = line.rfind(',', last - 1);
    mean.push_back(std::stod(line.substr(before + 1, last - before - 1)));
  }
  ASSERT_EQ(mean.size(), 2u) << csv;
  EXPECT_NEAR(mean[0], 35 * 0.570, 0.1);
  EXPECT_NEAR(mean[1], 256 * 0.570, 0.1);
  for (const char* args :
       {"--instance nosuch", "--sizes 0", "--sizes 61", "--layouts packed", "--platform rtx3060ti"}) {
    const Outcome bad =
        cli("sweep cu-masks " + std::string(GPURT_SOURCE_DIR "/examples/amd/isolated_mm1024.json") + " " +
            args + " --out " + path("bad.csv"));
    EXPECT_EQ(bad.code, 2) << args << ": " << bad.err;
    EXPECT_NE(bad.err.find("--"), std::string::npos) << args << ": " << bad.err;
    EXPECT_FALSE(fs::exists(path("bad.csv"))) << args;
  }
  // The instance's label is a key column: one with a comma is bad input in its config.
  const std::string comma = write_edited("comma.json", GPURT_SOURCE_DIR "/examples/amd/isolated_mm1024.json",
                                         "\"label\": \"MM1024\"", "\"label\": \"MM1024,x\"");
  const Outcome labelled = cli("sweep cu-masks " + comma + " --sizes 15 --out " + path("bad.csv"));
  EXPECT_EQ(labelled.code, 2) << labelled.err;
  EXPECT_NE(labelled.err.find("comma.json: benchmarks[0].label = MM1024,x: is a column"), std::string::npos)
      << labelled.err;
  EXPECT_FALSE(fs::exists(path("bad.csv")));
  // Nor a word that reads as a number no sweep writes (merge would refuse the CSV).
  const std::string nan = write_edited("nan.json", GPURT_SOURCE_DIR "/examples/amd/isolated_mm1024.json",
                                       "\"label\": \"MM1024\"", "\"label\": \"the nan case\"");
  const Outcome nan_label = cli("sweep cu-masks " + nan + " --sizes 15 --out " + path("bad.csv"));
  EXPECT_EQ(nan_label.code, 2) << nan_label.err;
  EXPECT_NE(nan_label.err.find("nan.json: benchmarks[0].label = the nan case: is a column"),
            std::string::npos)
      << nan_label.err;
  EXPECT_FALSE(fs::exists(path("bad.csv")));
  // --instance names one instance: a label two instances share is refused, not resolved to one.
  const std::string twice =
      write_edited("twice.json", GPURT_SOURCE_DIR "/examples/amd/mm1024_vs_mm1024_full.json",
                   "\"label\": \"competitor\"", "\"label\": \"measured\"");
  const Outcome ambiguous =
      cli("sweep cu-masks " + twice + " --instance measured --sizes 15 --out " + path("bad.csv"));
  EXPECT_EQ(ambiguous.code, 2) << ambiguous.err;
  EXPECT_NE(ambiguous.err.find("--instance = measured: benchmarks 0 and 1 of"), std::string::npos)
      << ambiguous.err;
  EXPECT_FALSE(fs::exists(path("bad.csv")));
}
