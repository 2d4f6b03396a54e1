// A plugin library as a user would write one (docs/bench.md "Plugin libraries"): a CPU-only
// plugin, "cpu_sleep", that sleeps additional_info microseconds per iteration and reports it as
// one one-block kernel. Built as a shared object by tests/CMakeLists.txt; loaded by
// test_bench_plugin_lib.cpp and the CLI test. GPURT_TEST_PLUGIN_REFUSE builds a variant whose
// entry point refuses (returns nonzero), as one built against another ABI would.
#include <chrono>
#include <memory>
#include <thread>

#include "gpurt/bench/plugin.hpp"

namespace {

class CpuSleep final : public gpurt::BenchPlugin {
 public:
  void initialize(const gpurt::PluginContext& ctx) override {
    _ctx = ctx;
    _us = ctx.instance->additional_info.is_number_integer() ? ctx.instance->additional_info.get<int>() : 100;
  }
  void execute(gpurt::IterationRecord& it) override {
    gpurt::KernelRecord k;
    k.name = "cpu_sleep";
    k.block_count = 1;
    k.launch_before = _ctx.now();
    std::this_thread::sleep_for(std::chrono::microseconds(_us));
    k.launch_after = k.sync_after.emplace(_ctx.now());
    k.blocks.push_back({k.launch_before, k.launch_after, 0});
    it.kernels.push_back(std::move(k));
  }

 private:
  gpurt::PluginContext _ctx;
  int _us = 100;
};

}  // namespace

extern "C" int gpurt_bench_plugins(gpurt::PluginRegistry* registry, int abi) {
#ifdef GPURT_TEST_PLUGIN_REFUSE
  (void)registry;
  (void)abi;
  return 1;
#else
  if (abi != gpurt::kBenchPluginAbi) return 1;
  registry->add("cpu_sleep", [] { return std::make_unique<CpuSleep>(); });
  return 0;
#endif
}
