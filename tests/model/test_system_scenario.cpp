// system_scenario (issue 18): a gpurt/system@1 system as the examiner-style scenario `gpurt
// bench SYSTEM` runs, checked against numbers worked by hand in the comments.
#include <gtest/gtest.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/system_scenario.hpp"

using namespace gpurt;

namespace {

// RTX 3060 Ti preset: 38 SMs, 1536 threads / 16 blocks / 65536 registers / 100 KiB shared
// memory per SM, 1024 threads per block.
System two_tasks() {
  return parse_system(parse_json(R"({
    "format": "gpurt/system@1", "time_unit": "us", "platform": "rtx3060ti",
    "tasks": [
      {"name": "a", "period": 1000, "deadline": 900, "segments": [
        {"cpu": [100, 200]}, {"h2d": 10},
        {"kernel": {"blocks": 500, "threads": 256, "registers": 32, "shared_memory": 16384, "wcet": 300}},
        {"d2h": 5}, {"cpu": 50}]},
      {"name": "b", "deadline": 700, "segments": [{"kernel": {"wcet": 40}}]}
    ]})",
                                 "s.json"),
                      "s.json");
}

TEST(SystemScenario, OneInstancePerTaskWithHandCheckedActions) {
  const Scenario s = system_scenario(two_tasks(), Nanos{2'500'000}, "s.json");
  ASSERT_EQ(s.instances.size(), 2u);
  const ScenarioInstance& a = s.instances[0];
  EXPECT_EQ(a.plugin, "stream_action");
  EXPECT_EQ(a.label, "a");
  EXPECT_EQ(a.log_name, "a.json");
  EXPECT_EQ(a.period, Nanos{1'000'000});
  EXPECT_EQ(a.max_iterations, 3);  // releases 0, 1000, 2000 < 2500 us
  ASSERT_EQ(a.actions.size(), 5u);
  // cpu hi 200 us sleeps before the h2d copy of 10 us · 12e9 B/s = 120000 bytes.
  EXPECT_EQ(a.actions[0].kind, HostAction::Kind::copy);
  EXPECT_EQ(a.actions[0].delay, Nanos{200'000});
  EXPECT_EQ(a.actions[0].bytes, 120'000);
  EXPECT_EQ(a.actions[0].direction, CopyDirection::host_to_device);
  // 256 threads, 16 KiB, 32·256 registers: min(1536/256, 100/16, 65536/8192, 16) = 6 blocks per
  // SM, 228 on the GPU; 500 blocks = 3 waves, so each block spins 300 us / 3 = 100 us.
  const HostAction& k = a.actions[1];
  EXPECT_EQ(k.kind, HostAction::Kind::kernel);
  EXPECT_EQ(k.delay, Nanos{0});
  EXPECT_EQ(k.kernel.blocks, 500);
  EXPECT_EQ(k.kernel.shape.threads, 256);
  EXPECT_EQ(k.kernel.shape.shared_memory, 16384);
  EXPECT_EQ(k.kernel.shape.registers, 8192);
  EXPECT_EQ(k.kernel.block_time, Nanos{100'000});
  EXPECT_TRUE(k.kernel.wcet_time);
  EXPECT_EQ(a.actions[2].kind, HostAction::Kind::copy);
  EXPECT_EQ(a.actions[2].bytes, 60'000);  // 5 us
  EXPECT_EQ(a.actions[2].direction, CopyDirection::device_to_host);
  // The trailing CPU work waits for the GPU work, then sleeps 50 us.
  EXPECT_EQ(a.actions[3].kind, HostAction::Kind::sync_stream);
  EXPECT_EQ(a.actions[3].delay, Nanos{0});
  EXPECT_EQ(a.actions[4].kind, HostAction::Kind::sync_stream);
  EXPECT_EQ(a.actions[4].delay, Nanos{50'000});

  // b: no period, so its deadline of 700 us separates releases: 0, 700, 1400, 2100 < 2500.
  const ScenarioInstance& b = s.instances[1];
  EXPECT_EQ(b.period, Nanos{700'000});
  EXPECT_EQ(b.max_iterations, 4);
  ASSERT_EQ(b.actions.size(), 2u);
  // No shape: 1024-thread blocks (the largest launchable), 1536/1024 = 1 per SM, 38 blocks, one
  // wave of 40 us.
  EXPECT_EQ(b.actions[0].kernel.blocks, 38);
  EXPECT_EQ(b.actions[0].kernel.shape.threads, 1024);
  EXPECT_EQ(b.actions[0].kernel.block_time, Nanos{40'000});
  EXPECT_EQ(b.actions[1].kind, HostAction::Kind::sync_stream);
}

TEST(SystemScenario, RefusesWhatCannotBeBenchmarked) {
  EXPECT_THROW(system_scenario(two_tasks(), Nanos{0}, "s.json"), InputError);
  System s = two_tasks();
  s.tasks[1].deadline.reset();  // neither period nor deadline
  try {
    system_scenario(s, Nanos{1'000'000}, "s.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tasks[1].period"), std::string::npos) << e.what();
  }
}

}  // namespace
