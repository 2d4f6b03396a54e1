// The general sweep runner: the same CSV for any thread count, after a resume from a partial or
// interrupted file, and from merged shards; merge rejects files that do not form one sweep.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/exp/sweep.hpp"
#include "gpurt/exp/sweep_csv.hpp"

namespace fs = std::filesystem;

namespace gpurt {
namespace {

// A synthetic experiment: point p has p % 4 + 1 items; item j is a number drawn from
// Rng(7).fork(p·10 + j); a point's value is the sum of its items' numbers, and their count.
SweepExperiment synthetic(std::atomic<int>* calls = nullptr, int fail_at_point = -1) {
  SweepExperiment e;
  e.key_columns = {"x"};
  e.value_columns = {"items", "sum"};
  for (int p = 0; p < 9; ++p) {
    e.keys.push_back({std::to_string(10 * p)});
    e.items.push_back(p % 4 + 1);
  }
  e.run_item = [calls, fail_at_point](std::size_t p, int j) {
    if (calls != nullptr) ++*calls;
    if (static_cast<int>(p) == fail_at_point) throw Error("interrupted");
    Rng rng = Rng(7).fork(p * 10 + static_cast<std::size_t>(j));
    return SweepItem{static_cast<double>(rng.uniform_int(0, 1000))};
  };
  e.finish_point = [](std::size_t, const std::vector<SweepItem>& items) {
    double sum = 0;
    for (const SweepItem& it : items) sum += it[0];
    return std::vector<std::string>{std::to_string(items.size()), std::to_string(static_cast<long>(sum))};
  };
  return e;
}

class Sweep : public ::testing::Test {
 protected:
  void SetUp() override {
    _dir = fs::temp_directory_path() / ("gpurt-sweep-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(_dir);
  }
  void TearDown() override { fs::remove_all(_dir); }
  std::string path(const std::string& name) const { return (_dir / name).string(); }
  fs::path _dir;
};

TEST_F(Sweep, CsvIsTheSerialComputationInPointOrderForAnyThreadCount) {
  // Expected rows, computed here serially from the documented per-item seeds.
  std::string expected = "point,points,x,items,sum\n";
  for (int p = 0; p < 9; ++p) {
    long sum = 0;
    for (int j = 0; j <= p % 4; ++j)
      sum += Rng(7).fork(static_cast<std::uint64_t>(p * 10 + j)).uniform_int(0, 1000);
    expected += std::to_string(p) + ",9," + std::to_string(10 * p) + "," + std::to_string(p % 4 + 1) + "," +
                std::to_string(sum) + "\n";
  }
  for (int threads : {1, 2, 4}) {
    const SweepOutcome r = run_sweep(synthetic(), {.threads = threads, .out = path("t.csv")});
    EXPECT_EQ(r.csv, expected) << threads << " threads";
    EXPECT_EQ(read_text_file(path("t.csv")), expected);
    EXPECT_EQ(r.computed, 9u);
    fs::remove(path("t.csv"));
  }
}

TEST_F(Sweep, ResumeFromAPartialFileComputesOnlyTheMissingPoints) {
  const std::string full = run_sweep(synthetic(), {.threads = 2}).csv;
  const std::vector<CsvLine> lines = complete_csv_lines(full);
  // What a killed run leaves: rows in completion order, the last one cut mid-line.
  const std::string partial = lines[0].text + "\n" + lines[5].text + "\n" + lines[2].text + "\n" +
                              lines[7].text + "\n" + lines[3].text.substr(0, 5);
  std::ofstream(path("r.csv")) << partial;
  std::atomic<int> calls = 0;
  const SweepOutcome r = run_sweep(synthetic(&calls), {.threads = 2, .out = path("r.csv")});
  EXPECT_EQ(read_text_file(path("r.csv")), full);
  EXPECT_EQ(r.resumed, 3u);  // points 4, 1, 6
  EXPECT_EQ(r.computed, 6u);
  EXPECT_EQ(calls.load(), 21 - (1 + 2 + 3));  // 21 items in all; points 4, 1, 6 have 1, 2, 3
}

TEST_F(Sweep, AnInterruptedRunKeepsFinishedPointsAndResumesToTheSameCsv) {
  const std::string full = run_sweep(synthetic(), {.threads = 1}).csv;
  EXPECT_THROW(run_sweep(synthetic(nullptr, 5), {.threads = 1, .out = path("k.csv")}), Error);
  const std::vector<CsvLine> kept = complete_csv_lines(read_text_file(path("k.csv")));
  ASSERT_GE(kept.size(), 1u);
  EXPECT_EQ(kept[0].text, "point,points,x,items,sum");
  for (std::size_t i = 1; i < kept.size(); ++i) EXPECT_NE(full.find(kept[i].text + "\n"), std::string::npos);
  std::atomic<int> calls = 0;
  const SweepOutcome r = run_sweep(synthetic(&calls), {.threads = 2, .out = path("k.csv")});
  EXPECT_EQ(read_text_file(path("k.csv")), full);
  EXPECT_EQ(r.resumed, kept.size() - 1);
  int kept_items = 0;  // point p has p % 4 + 1 items
  for (std::size_t i = 1; i < kept.size(); ++i) kept_items += std::stoi(kept[i].text) % 4 + 1;
  EXPECT_EQ(calls.load(), 21 - kept_items);
}

TEST_F(Sweep, ShardsMergeToTheUnshardedCsv) {
  const std::string full = run_sweep(synthetic(), {.threads = 2}).csv;
  std::vector<SweepCsvFile> shards;
  for (int i = 1; i <= 4; ++i) {
    const SweepOutcome r = run_sweep(synthetic(), {.threads = 2, .shard_index = i, .shard_count = 4});
    for (std::size_t p : r.points) EXPECT_EQ(static_cast<int>(p % 4), i - 1);
    shards.push_back({"s" + std::to_string(i), r.csv});
  }
  EXPECT_EQ(merge_sweep_csv(shards), full);
  std::swap(shards[0], shards[3]);  // order of the inputs does not matter
  EXPECT_EQ(merge_sweep_csv(shards), full);
}

std::string merge_error(const std::vector<SweepCsvFile>& files) {
  try {
    merge_sweep_csv(files);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST_F(Sweep, MergeRejectsFilesThatAreNotOneSweep) {
  const std::string a = run_sweep(synthetic(), {.shard_index = 1, .shard_count = 2}).csv;
  const std::string b = run_sweep(synthetic(), {.shard_index = 2, .shard_count = 2}).csv;
  EXPECT_EQ(merge_error({{"a.csv", a}, {"b.csv", b}}), "no error");
  std::string other = b;
  other.replace(0, other.find('\n'), "point,points,y,items,sum");
  EXPECT_EQ(merge_error({{"a.csv", a}, {"b.csv", other}}),
            "b.csv: header = point,points,y,items,sum: differs from a.csv's header point,points,x,items,sum");
  const std::string dup = b + complete_csv_lines(a)[2].text + "\n";  // point 2 again
  EXPECT_EQ(merge_error({{"a.csv", a}, {"b.csv", dup}}),
            "b.csv: line 6.point = 2: duplicate: also in a.csv line 3");
  EXPECT_EQ(
      merge_error({{"a.csv", a}}),
      "a.csv: 4 of 9 points missing from the inputs: 1, 3, 5, 7 (an unfinished shard, or not every shard "
      "given?)");
  const std::string cut = b.substr(0, b.size() - 3);  // point 7 truncated: absent
  EXPECT_NE(merge_error({{"a.csv", a}, {"b.csv", cut}}).find("1 of 9 points missing from the inputs: 7 "),
            std::string::npos);
  std::string bigger = b;
  bigger.replace(bigger.find("1,9,"), 4, "1,10,");
  EXPECT_EQ(merge_error({{"a.csv", a}, {"b.csv", bigger}}),
            "b.csv: line 2.points = 10: differs from a.csv line 2 (9 points): not the same sweep");
  EXPECT_EQ(merge_error({{"a.csv", "utilization,sets\n0.1,3\n"}}),
            "a.csv: header = utilization,sets: is not a sweep CSV (it must start with point,points,)");
}

// fuzz_sweep_resume (issue 16): a row claiming 2^64 - 1 points made the merge list every missing
// point (unbounded memory and time); it now counts them and lists the first ten.
TEST_F(Sweep, MergeOfAHugePointCountListsTenMissingPoints) {
  EXPECT_EQ(merge_error({{"h.csv", "point,points,x\n1,18446744073709551615,0\n"}}),
            "h.csv: 18446744073709551614 of 18446744073709551615 points missing from the inputs: 0, 2, 3, 4, "
            "5, 6, 7, 8, 9, 10, ... (an unfinished shard, or not every shard given?)");
}

TEST_F(Sweep, ResumeRefusesAFileOfAnotherSweepAndLeavesItAlone) {
  const std::string foreign = "point,points,x,items,other\n0,9,0,1,5\n";
  std::ofstream(path("f.csv")) << foreign;
  EXPECT_THROW(run_sweep(synthetic(), {.out = path("f.csv")}), InputError);
  EXPECT_EQ(read_text_file(path("f.csv")), foreign);
  const std::string wrong_key = "point,points,x,items,sum\n1,9,99,2,5\n";
  std::ofstream(path("g.csv")) << wrong_key;
  try {
    run_sweep(synthetic(), {.out = path("g.csv")});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("g.csv: line 2.x = 99: this sweep's point 1 has 10"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_text_file(path("g.csv")), wrong_key);
  // A row of another shard is refused too.
  std::ofstream(path("h.csv")) << "point,points,x,items,sum\n1,9,10,2,5\n";
  EXPECT_THROW(run_sweep(synthetic(), {.shard_index = 1, .shard_count = 2, .out = path("h.csv")}),
               InputError);
}

// No sweep writes a non-finite number: resume and merge refuse one with its file, line and
// column, whatever column it is in; "1.5 2" (a list) and "" stay values.
TEST_F(Sweep, ResumeAndMergeRefuseNonFiniteValues) {
  EXPECT_TRUE(well_formed_sweep_value("1.5 2"));
  EXPECT_TRUE(well_formed_sweep_value(""));
  EXPECT_FALSE(well_formed_sweep_value("nan"));
  EXPECT_FALSE(well_formed_sweep_value("1 inf"));
  EXPECT_FALSE(holds_non_finite_number("1.5 2"));
  EXPECT_FALSE(holds_non_finite_number("gpurt-label"));
  EXPECT_TRUE(holds_non_finite_number("-infinity"));
  EXPECT_TRUE(holds_non_finite_number("3 NaN"));
  for (const std::string bad : {"nan", "inf", "-inf"}) {
    std::ofstream(path("r.csv")) << "point,points,x,items,sum\n1,9,10,2," + bad + "\n";
    try {
      run_sweep(synthetic(), {.out = path("r.csv")});
      ADD_FAILURE() << bad << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), path("r.csv") + ": line 2.sum = " + bad +
                                           ": is not a number this sweep writes; refusing to resume into it");
    }
  }
  const std::string a = run_sweep(synthetic(), {.shard_index = 1, .shard_count = 2}).csv;
  std::string b = run_sweep(synthetic(), {.shard_index = 2, .shard_count = 2}).csv;
  const std::string row = complete_csv_lines(b)[1].text;  // point 1
  b.replace(b.find(row), row.size(), row.substr(0, row.rfind(',')) + ",nan");
  EXPECT_EQ(merge_error({{"a.csv", a}, {"b.csv", b}}),
            "b.csv: line 2.sum = nan: is not a finite number; no sweep writes it");
}

// A resumed row must be one this sweep could have written: each value of its column's kind
// (a ratio of 7, a fractional or negative count, "true" where a number goes, were kept and
// charted as the sweep's result) and the experiment's rule across the row (here: the item
// count of the point). The file stays as it was.
TEST_F(Sweep, ResumeRefusesValuesTheSweepCouldNotHaveWritten) {
  EXPECT_EQ(sweep_value_problem("0.5", SweepValue::ratio), "");
  EXPECT_EQ(sweep_value_problem("", SweepValue::ratio), "");
  EXPECT_EQ(sweep_value_problem("1", SweepValue::ratio), "");
  EXPECT_EQ(sweep_value_problem("7", SweepValue::ratio), "is not a ratio in [0, 1]");
  EXPECT_EQ(sweep_value_problem("-0.1", SweepValue::ratio), "is not a ratio in [0, 1]");
  EXPECT_EQ(sweep_value_problem("2.5", SweepValue::count), "is not a whole number >= 0");
  EXPECT_EQ(sweep_value_problem("-1", SweepValue::count), "is not a whole number >= 0");
  EXPECT_EQ(sweep_value_problem("1 2", SweepValue::count), "is not one number");
  EXPECT_EQ(sweep_value_problem("true", SweepValue::nonnegative), "is not one number");
  EXPECT_EQ(sweep_value_problem("-6.5", SweepValue::nonnegative), "is negative");
  EXPECT_EQ(sweep_value_problem("1", SweepValue::flag), "is not true or false");
  EXPECT_EQ(sweep_value_problem("-3 x", SweepValue::number), "");  // the format is checked elsewhere
  SweepExperiment e = synthetic();
  e.value_kinds = {SweepValue::count, SweepValue::count};
  e.check_values =
      [](std::size_t p,
         const std::vector<std::string>& v) -> std::optional<std::pair<std::size_t, std::string>> {
    if (v[0] != std::to_string(p % 4 + 1))
      return std::pair{std::size_t{0}, std::string("is not the point's item count")};
    return std::nullopt;
  };
  const std::pair<std::string, std::string> refused[] = {
      {"1,9,10,2.5,5", "line 2.items = 2.5: is not a whole number >= 0, which this sweep never writes there"},
      {"1,9,10,2,-5", "line 2.sum = -5: is not a whole number >= 0, which this sweep never writes there"},
      {"1,9,10,3,5", "line 2.items = 3: is not the point's item count; refusing to resume into it"},
  };
  for (const auto& [row, message] : refused) {
    const std::string text = "point,points,x,items,sum\n" + row + "\n";
    std::ofstream(path("v.csv")) << text;
    try {
      run_sweep(e, {.out = path("v.csv")});
      ADD_FAILURE() << row << ": no error";
    } catch (const InputError& err) {
      EXPECT_NE(std::string(err.what()).find(message), std::string::npos) << err.what();
    }
    EXPECT_EQ(read_text_file(path("v.csv")), text);
  }
  std::ofstream(path("ok.csv")) << "point,points,x,items,sum\n1,9,10,2,5\n";
  EXPECT_EQ(run_sweep(e, {.out = path("ok.csv")}).resumed, 1u);
}

}  // namespace
}  // namespace gpurt
