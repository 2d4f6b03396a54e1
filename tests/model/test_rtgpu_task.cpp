// gpurt/rtgpu@1 files: reading, deadline-monotonic priorities, and every rejection naming the
// file, the JSON path and the value.
#include <gtest/gtest.h>

#include <functional>

#include "gpurt/core/error.hpp"
#include "gpurt/model/rtgpu_task.hpp"

namespace gpurt {
namespace {

Json valid() {
  return Json::parse(R"({"format": "gpurt/rtgpu@1", "time_unit": "ms", "platform": "gtx1080ti",
    "virtual_sms_per_sm": 2,
    "tasks": [
      {"name": "a", "period": 50, "deadline": 40, "cpu": [[1, 2], [0.5, 1]], "copy": [[1, 1.5], [1, 1]],
       "gpu": [{"work": [10, 12], "overhead": 1.2, "alpha": 1.7}]},
      {"name": "b", "period": 30, "cpu": [[2, 3]], "copy": [], "gpu": []}]})");
}

std::string error_of(const std::function<void(Json&)>& mutate) {
  Json doc = valid();
  mutate(doc);
  try {
    parse_rtgpu_system(doc, "sys.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RtgpuTaskFile, ReadsTimesBoundsAndDeadlineMonotonicPriorities) {
  const RtgpuSystem s = parse_rtgpu_system(valid(), "sys.json");
  ASSERT_EQ(s.tasks.size(), 2u);
  EXPECT_EQ(s.platform.sms, 28);
  const RtgpuTask& a = s.tasks[0];
  EXPECT_EQ(a.period, Nanos{50'000'000});
  EXPECT_EQ(a.deadline, Nanos{40'000'000});
  EXPECT_EQ(a.cpu[1].lo, Nanos{500'000});
  EXPECT_EQ(a.copy[0].hi, Nanos{1'500'000});
  EXPECT_EQ(a.gpu[0].overhead, Nanos{1'200'000});
  EXPECT_DOUBLE_EQ(a.gpu[0].alpha, 1.7);
  EXPECT_EQ(s.tasks[1].deadline, Nanos{30'000'000});  // deadline defaults to the period
  // Deadline-monotonic: b (D 30) before a (D 40).
  EXPECT_EQ(s.tasks[1].priority, 1);
  EXPECT_EQ(a.priority, 2);
  EXPECT_EQ(priority_order(s), (std::vector<std::size_t>{1, 0}));
  // Round trip through the file form.
  const RtgpuSystem back = parse_rtgpu_system(to_json(s), "again.json");
  EXPECT_EQ(to_json(back), to_json(s));
  EXPECT_NO_THROW(validate(s));
}

TEST(RtgpuTaskFile, ExplicitPrioritiesWin) {
  const std::string e = error_of([](Json& d) {
    d["tasks"][0]["priority"] = 1;
    d["tasks"][1]["priority"] = 2;
  });
  EXPECT_EQ(e, "(no error)");
  Json d = valid();
  d["tasks"][0]["priority"] = 1;
  d["tasks"][1]["priority"] = 7;
  const RtgpuSystem s = parse_rtgpu_system(d, "x");
  EXPECT_EQ(priority_order(s), (std::vector<std::size_t>{0, 1}));
}

TEST(RtgpuTaskFile, RejectsBadInputWithPathAndValue) {
  EXPECT_EQ(error_of([](Json& d) {
              d["tasks"][0]["copy"].push_back(Json::array({1, 1}));
            }),
            "sys.json: tasks[0].copy = [[1,1.5],[1,1],[1,1]]: has 3 segments; m_i = 2 CPU segments need "
            "2m_i - 2 = 2");
  EXPECT_EQ(error_of([](Json& d) { d["tasks"][0]["gpu"] = Json::array(); }),
            "sys.json: tasks[0].gpu = []: has 0 segments; m_i = 2 CPU segments need m_i - 1 = 1");
  EXPECT_EQ(error_of([](Json& d) {
              d["tasks"][0]["cpu"][1] = Json::array({3, 2});
            }),
            "sys.json: tasks[0].cpu[1] = [3,2]: lower bound must be <= upper bound");
  EXPECT_EQ(error_of([](Json& d) { d["tasks"][0]["gpu"][0]["alpha"] = 0.9; }),
            "sys.json: tasks[0].gpu[0].alpha = 0.9: must be >= 1 (interleaving never speeds a kernel up)");
  EXPECT_EQ(error_of([](Json& d) { d["tasks"][0]["deadline"] = 60; }),
            "sys.json: tasks[0].deadline = 60: must be <= period (constrained deadlines, RTGPU §5.1)");
  EXPECT_EQ(error_of([](Json& d) {
              d["platform"] = Json{{"preset", "gtx1080ti"}, {"sms", 0}};
            }),
            "sys.json: platform.sms = 0: must be in 1..65536");
  // RTGPU's persistent blocks must fit on an SM (the system derivation refused what this reader
  // loaded, so `convert --to rtgpu` of a loaded file failed).
  EXPECT_EQ(
      error_of([](Json& d) {
        d["platform"] = "jetson-tx1";
        d["virtual_sms_per_sm"] = 33;
      }),
      "sys.json: virtual_sms_per_sm = 33: RTGPU runs 33 persistent blocks per SM and jetson-tx1 holds 32");
  EXPECT_NE(error_of([](Json& d) {
              d["platform"] = Json{{"preset", "gtx1080ti"}, {"max_blocks", 1}};
              d.erase("virtual_sms_per_sm");
            })
                .find("RTGPU runs 2 persistent blocks per SM and gtx1080ti holds 1 (virtual_sms_per_sm "
                      "defaults to 2)"),
            std::string::npos);
  EXPECT_EQ(
      error_of([](Json& d) {
        d["tasks"][0]["priority"] = 3;
        d["tasks"][1]["priority"] = 3;
      }),
      "sys.json: tasks[1].priority = 3: is the priority of an earlier task (priorities must be unique)");
  EXPECT_EQ(
      error_of([](Json& d) { d["tasks"][0]["priority"] = 3; }),
      "sys.json: tasks: 1 of 2 tasks have a priority: give every task one, or none (deadline-monotonic)");
  EXPECT_EQ(error_of([](Json& d) { d["tasks"][1]["cpu"] = Json::array(); }),
            "sys.json: tasks[1].cpu = []: must hold at least one CPU segment (m_i >= 1)");
  EXPECT_EQ(
      error_of([](Json& d) { d["tasks"][0]["gpu"][0]["overhead"] = 13; }),
      "sys.json: tasks[0].gpu[0].overhead = 13: must be <= the work's upper bound (the overhead is part "
      "of the work)");
  EXPECT_EQ(error_of([](Json& d) {
              d["tasks"][0]["copy"][0] = Json::array({-1, 1});
            }),
            "sys.json: tasks[0].copy[0][0] = -1: must be >= 0");
  EXPECT_EQ(error_of([](Json& d) { d["virtual_sms_per_sm"] = 0; }),
            "sys.json: virtual_sms_per_sm = 0: must be in 1..64");
  EXPECT_EQ(error_of([](Json& d) { d["tasks"][1]["period"] = 2'000'000'000; }),
            "sys.json: tasks[1].period = 2000000000: is too large (times are limited to 10^15 ns, about 11.6 "
            "days)");
  EXPECT_EQ(error_of([](Json& d) { d["tasks"][0]["perod"] = 1; }),
            "sys.json: tasks[0].perod: unknown key (did you mean \"period\"?)");
}

}  // namespace
}  // namespace gpurt
