// Plugin libraries (load_plugin_library): a user's shared object adds plugins that the runner
// runs in threads and processes like the built-in ones; libraries that cannot be used are
// refused with the file named, and leave the registry unchanged.
#include <gtest/gtest.h>

#include "gpurt/bench/bench.hpp"
#include "gpurt/bench/runner.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"

namespace {

std::string error_of(const std::string& path, gpurt::PluginRegistry& r) {
  try {
    gpurt::load_plugin_library(path, r);
  } catch (const gpurt::Error& e) {
    return e.what();
  }
  return "";
}

// Opens plugins from a registry with no stream: what the gpu backend does, minus the GPU.
class RegistryBackend final : public gpurt::WorkerBackend {
 public:
  explicit RegistryBackend(const gpurt::PluginRegistry& r) : _r(r) {}
  std::unique_ptr<gpurt::BenchPlugin> open(gpurt::PluginContext& ctx) override {
    const gpurt::PluginFactory* f = _r.find(ctx.instance->plugin);
    if (f == nullptr) throw gpurt::Error("no plugin " + ctx.instance->plugin);
    auto p = (*f)();
    p->initialize(ctx);
    return p;
  }

 private:
  const gpurt::PluginRegistry& _r;
};

class PluginLib : public ::testing::TestWithParam<bool> {};  // param: use_processes

}  // namespace

TEST_P(PluginLib, LoadedPluginRunsLikeABuiltIn) {
  gpurt::PluginRegistry libs;
  EXPECT_EQ(gpurt::load_plugin_library(GPURT_TEST_PLUGIN_LIB, libs), std::vector<std::string>{"cpu_sleep"});
  gpurt::Scenario s;
  s.name = "lib";
  s.use_processes = GetParam();
  for (int i = 0; i < 2; ++i) {
    gpurt::ScenarioInstance in;
    in.plugin = "cpu_sleep";
    in.log_name = "lib" + std::to_string(i) + ".json";
    in.max_iterations = 3;
    in.additional_info = 2000 * (i + 1);  // µs per iteration
    s.instances.push_back(in);
  }
  RegistryBackend backend(libs);
  const auto traces = gpurt::run_instances(s, *gpurt::find_platform_preset("h100"), backend);
  ASSERT_EQ(traces.size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    ASSERT_EQ(traces[i].iterations.size(), 3U);
    for (const auto& it : traces[i].iterations) {
      ASSERT_EQ(it.kernels.size(), 1U);
      const auto& b = it.kernels[0].blocks.at(0);
      // Slept 2 or 4 ms: the plugin's own work, timed on the run clock.
      EXPECT_GE((b.end - b.start).count(), 2'000'000 * static_cast<std::int64_t>(i + 1));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ThreadsAndProcesses, PluginLib, ::testing::Bool());

TEST(PluginLibErrors, UnusableLibrariesAreRefusedNamingTheFile) {
  gpurt::PluginRegistry r;
  EXPECT_NE(error_of("/nonexistent/libx.so", r).find("plugin library /nonexistent/libx.so:"),
            std::string::npos);
  EXPECT_NE(error_of(GPURT_TEST_PLUGIN_LIB_REFUSING, r).find("refused to register (returned 1"),
            std::string::npos);
  EXPECT_TRUE(r.names().empty());
  // Twice into one registry: the second would replace cpu_sleep, which is refused.
  EXPECT_EQ(error_of(GPURT_TEST_PLUGIN_LIB, r), "");
  EXPECT_NE(error_of(GPURT_TEST_PLUGIN_LIB, r).find("plugin \"cpu_sleep\" is already registered"),
            std::string::npos);
  EXPECT_EQ(r.names(), std::vector<std::string>{"cpu_sleep"});
}

TEST(PluginLibErrors, ALibraryWithoutTheEntryPointIsRefused) {
  gpurt::PluginRegistry r;
  // libgpurt itself is a shared object with no gpurt_bench_plugins.
  EXPECT_NE(error_of(GPURT_LIBGPURT, r).find("has no gpurt_bench_plugins entry point"), std::string::npos)
      << error_of(GPURT_LIBGPURT, r);
}

TEST(PluginLibErrors, TheGpuBackendAcceptsLibraryPluginsAndTheSimBackendDoesNot) {
  gpurt::PluginRegistry libs;
  gpurt::load_plugin_library(GPURT_TEST_PLUGIN_LIB, libs);
  const std::string file = ::testing::TempDir() + "/plugin_lib_config.json";
  gpurt::write_file_atomically(file, R"({"name": "lib", "max_iterations": 2, "max_time": 0, "benchmarks": [
      {"filename": "./bin/cpu_sleep.so", "thread_count": 1, "block_count": 1, "additional_info": 500}]})");
  const gpurt::Platform& h100 = *gpurt::find_platform_preset("h100");
  const gpurt::Scenario s = gpurt::load_bench_scenario(file, h100, gpurt::BenchBackend::gpu, &libs);
  ASSERT_EQ(s.instances.size(), 1U);
  EXPECT_EQ(s.instances[0].plugin, "cpu_sleep");
  EXPECT_EQ(s.instances[0].additional_info, 500);
  try {
    gpurt::load_bench_scenario(file, h100, gpurt::BenchBackend::sim, &libs);
    FAIL() << "the sim backend accepted a plugin it has no model of";
  } catch (const gpurt::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("plugin \"cpu_sleep\" cannot be simulated"), std::string::npos)
        << e.what();
  }
}
