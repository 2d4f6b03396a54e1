// Every validation path of "gpurt/smlp@1" files: each case edits one thing of a valid file and
// checks the exact message (file, JSON path, value, problem).
#include <gtest/gtest.h>

#include <functional>

#include "gpurt/core/error.hpp"
#include "gpurt/model/smlp_task.hpp"

using namespace gpurt;

namespace {

Json valid() {
  return parse_json(R"({
    "format": "gpurt/smlp@1", "time_unit": "us", "platform": "rtx3060ti", "rho": 1.1,
    "tasks": [
      {"name": "a", "wcet_by_units": [9101, 4620, 3170, 2501, 2032], "deadline": 20000},
      {"name": "b", "wcet_by_units": [100, 60], "allowed_units": [1, 2]}
    ]})",
                    "s.json");
}

std::string error_after(const std::function<void(Json&)>& edit) {
  Json doc = valid();
  edit(doc);
  try {
    parse_smlp_system(doc, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST(SmlpFile, ValidFileLoadsWithTimesInNanoseconds) {
  const SmlpSystem s = parse_smlp_system(valid(), "s.json");
  EXPECT_EQ(s.platform.id, "rtx3060ti");
  EXPECT_EQ(s.time_unit, TimeUnit::us);
  EXPECT_DOUBLE_EQ(s.rho, 1.1);
  ASSERT_EQ(s.tasks.size(), 2u);
  EXPECT_EQ(s.tasks[0].wcet_by_units[3], Nanos{2'501'000});
  EXPECT_EQ(s.tasks[0].deadline, Nanos{20'000'000});
  EXPECT_FALSE(s.tasks[0].allowed_units);
  EXPECT_EQ(*s.tasks[1].allowed_units, (std::vector<int>{1, 2}));
  EXPECT_FALSE(s.tasks[1].deadline);
}

TEST(SmlpFile, DefaultsAndOtherUnits) {
  const Json doc = parse_json(R"({"format": "gpurt/smlp@1", "platform": "gtx1070",
      "tasks": [{"name": "x", "wcet_by_units": [1.5], "rho": 1.3, "allowed_units": [1]}]})",
                              "d.json");
  const SmlpSystem s = parse_smlp_system(doc, "d.json");
  EXPECT_EQ(s.time_unit, TimeUnit::us);  // default time_unit
  EXPECT_DOUBLE_EQ(s.rho, 1.1);          // default rho
  EXPECT_EQ(s.tasks[0].wcet_by_units[0], Nanos{1500});
  EXPECT_DOUBLE_EQ(*s.tasks[0].rho, 1.3);
}

TEST(SmlpFile, RoundTripsThroughJson) {
  const SmlpSystem s = parse_smlp_system(valid(), "s.json");
  const SmlpSystem back = parse_smlp_system(to_json(s), "back.json");
  EXPECT_EQ(to_json(back), to_json(s));
  EXPECT_EQ(back.tasks[0].wcet_by_units, s.tasks[0].wcet_by_units);
}

TEST(SmlpFile, TopLevelErrors) {
  EXPECT_EQ(error_after([](Json& d) { d = Json::array(); }),
            "s.json: (top level) = []: must be a JSON object");
  EXPECT_EQ(error_after([](Json& d) { d.erase("format"); }),
            "s.json: (top level): missing required key \"format\"");
  EXPECT_EQ(error_after([](Json& d) { d["format"] = "gpurt/pbs@1"; }),
            "s.json: format = \"gpurt/pbs@1\": must be \"gpurt/smlp@1\"");
  EXPECT_EQ(error_after([](Json& d) { d["rh0"] = 1; }), "s.json: rh0: unknown key (did you mean \"rho\"?)");
  EXPECT_EQ(error_after([](Json& d) { d["time_unit"] = "min"; }),
            "s.json: time_unit = \"min\": must be one of \"ns\", \"us\", \"ms\", \"s\"");
  EXPECT_EQ(error_after([](Json& d) { d["rho"] = 0.9; }),
            "s.json: rho = 0.9: must be >= 1 (eq. 4 compares against the single-unit area)");
  EXPECT_EQ(error_after([](Json& d) { d["rho"] = 1e300; }),
            "s.json: rho = 1e+300: must be <= 1000000 (as --rho: every size is allowed long before)");
  EXPECT_EQ(error_after([](Json& d) { d["rho"] = "1.1"; }),
            "s.json: rho = \"1.1\": must be a number, not a string");
  EXPECT_EQ(error_after([](Json& d) { d["platform"] = "rtx9999"; }).substr(0, 58),
            "s.json: platform = \"rtx9999\": unknown platform preset (pre");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"] = Json::array(); }),
            "s.json: tasks = []: must hold at least one task");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"] = 3; }),
            "s.json: tasks = 3: must be an array, not a number");
}

TEST(SmlpFile, TaskErrors) {
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][1]["name"] = "a"; }),
            "s.json: tasks[1].name = \"a\": is the name of an earlier task");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["name"] = ""; }),
            "s.json: tasks[0].name = \"\": must not be empty");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0].erase("name"); }),
            "s.json: tasks[0]: missing required key \"name\"");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["deadlines"] = 1; }),
            "s.json: tasks[0].deadlines: unknown key (did you mean \"deadline\"?)");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["wcet_by_units"][3] = -5; }),
            "s.json: tasks[0].wcet_by_units[3] = -5: must be > 0");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["wcet_by_units"][0] = 0; }),
            "s.json: tasks[0].wcet_by_units[0] = 0: must be > 0");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["wcet_by_units"][1] = "fast"; }),
            "s.json: tasks[0].wcet_by_units[1] = \"fast\": must be a number, not a string");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["wcet_by_units"] = Json::array(); }),
            "s.json: tasks[0].wcet_by_units = []: must hold L(i,1) at least");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["wcet_by_units"] = std::vector<int>(20, 5); }),
            "s.json: tasks[0].wcet_by_units: has 20 entries but the platform has only 19 units");
  // A WCET of 0.25 ns rounds up to 1 ns; a deadline of 0.25 ns rounds down to nothing.
  EXPECT_EQ(error_after([](Json& d) {
              d["time_unit"] = "ns";
              d["tasks"][0]["deadline"] = 0.25;
            }),
            "s.json: tasks[0].deadline = 0.25: must be at least 1 ns (time_unit is ns)");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["deadline"] = 0; }),
            "s.json: tasks[0].deadline = 0: must be > 0");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["rho"] = 0.5; }),
            "s.json: tasks[0].rho = 0.5: must be >= 1 (eq. 4 compares against the single-unit area)");
}

// Times up to 10^15 ns and at most 1,024 tasks, as in system@1 and rtgpu@1: every analysis of
// a file that loads stays within 64-bit sums, and `gpurt convert --to system` can always write
// what it read.
TEST(SmlpFile, TimesAndTaskCountAreBounded) {
  const std::string too_large = ": is too large (times are limited to 10^15 ns, about 11.6 days)";
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["wcet_by_units"][0] = std::int64_t{1000000000001}; }),
            "s.json: tasks[0].wcet_by_units[0] = 1000000000001" + too_large);
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["wcet_by_units"][0] = std::int64_t{1000000000000}; }),
            "<no error>");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["deadline"] = std::int64_t{2000000000000}; }),
            "s.json: tasks[0].deadline = 2000000000000" + too_large);
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][1]["period"] = std::int64_t{2000000000000}; }),
            "s.json: tasks[1].period = 2000000000000" + too_large);
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][1]["cpu_before"] = std::int64_t{2000000000000}; }),
            "s.json: tasks[1].cpu_before = 2000000000000" + too_large);
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][1]["cpu_after"] = std::int64_t{2000000000000}; }),
            "s.json: tasks[1].cpu_after = 2000000000000" + too_large);
  EXPECT_EQ(error_after([](Json& d) {
              const Json one = d["tasks"][1];
              d["tasks"] = Json::array();
              for (int i = 0; i < 1025; ++i) {
                d["tasks"].push_back(one);
                d["tasks"].back()["name"] = "t" + std::to_string(i);
              }
            }),
            "s.json: tasks: holds more than 1024 tasks");
  EXPECT_EQ(error_after([](Json& d) {
              const Json one = d["tasks"][1];
              d["tasks"] = Json::array();
              for (int i = 0; i < 1024; ++i) {
                d["tasks"].push_back(one);
                d["tasks"].back()["name"] = "t" + std::to_string(i);
              }
            }),
            "<no error>");
}

TEST(SmlpFile, AllowedUnitsErrors) {
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][1]["allowed_units"] = {2}; }),
            "s.json: tasks[1].allowed_units = [2]: must contain 1 (a job must be able to start on any "
            "single free unit)");
  EXPECT_EQ(error_after([](Json& d) {
              d["tasks"][1]["allowed_units"] = {1, 0};
            }),
            "s.json: tasks[1].allowed_units[1] = 0: must be in 1..19");
  EXPECT_EQ(error_after([](Json& d) {
              d["tasks"][1]["allowed_units"] = {1, 20};
            }),
            "s.json: tasks[1].allowed_units[1] = 20: must be in 1..19");
  EXPECT_EQ(error_after([](Json& d) {
              d["tasks"][1]["allowed_units"] = {1, 3};
            }),
            "s.json: tasks[1].allowed_units[1] = 3: has no WCET: wcet_by_units has only 2 entries");
  EXPECT_EQ(error_after([](Json& d) {
              d["tasks"][1]["allowed_units"] = {1, 1};
            }),
            "s.json: tasks[1].allowed_units[1] = 1: appears twice");
  EXPECT_EQ(error_after([](Json& d) {
              d["tasks"][1]["allowed_units"] = {1, 1.5};
            }),
            "s.json: tasks[1].allowed_units[1] = 1.5: must be a whole number");
}
