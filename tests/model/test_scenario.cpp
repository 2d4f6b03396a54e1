// Reading examiner configs: what each plugin becomes, and every kind of bad config.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gpurt/core/error.hpp"
#include "gpurt/model/scenario.hpp"

using namespace gpurt;

namespace {

const Platform& rtx() { return *find_platform_preset("rtx3060ti"); }

Json valid() {
  return parse_json(R"({
    "name": "s", "max_iterations": 2, "max_time": 0, "use_processes": false, "cuda_device": 0,
    "benchmarks": [
      {"filename": "./bin/timer_spin.so", "log_name": "a.json", "label": "A", "thread_count": [16, 16],
       "block_count": 4, "data_size": 0, "additional_info": 1500, "release_time": 0.25, "sm_mask": "~0x3"},
      {"filename": "./bin/multikernel.so", "log_name": "b.json", "thread_count": 0, "block_count": 0,
       "additional_info": [{"kernel_label": "K1", "duration": 1000, "block_count": 2, "thread_count": 64},
                           {"kernel_label": "K2", "duration": 2000, "block_count": 1, "thread_count": 32, "delay": 0.001}]},
      {"filename": "stream_action.so", "log_name": "c.json", "thread_count": 128, "block_count": 2,
       "additional_info": {"use_null_stream": true, "actions": [
         {"type": "memcpy", "parameters": {"size": 4096, "direction": "hostToDevice"}},
         {"type": "kernel", "label": "K", "parameters": {"duration": 500, "type": "counter_spin", "shared_memory_size": 4096}},
         {"type": "synchronize", "parameters": {"device": true}}]}}
    ]})",
                    "c.json");
}

std::string error_after(const std::function<void(Json&)>& edit) {
  Json doc = valid();
  edit(doc);
  try {
    parse_scenario(doc, "c.json", rtx());
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

// What a config may hold: a result file name whose parts a file system takes (one of 300 bytes
// failed at write time, exit 1, leaving an empty --out), and at most 1,024 benchmarks (the
// simulation's time grows with their square: 2,000 took 20 s, 100,000 would take hours).
TEST(Scenario, LogNamesFitAFileSystemAndConfigsHoldAtMost1024Benchmarks) {
  const std::string long_part =
      error_after([](Json& d) { d["benchmarks"][0]["log_name"] = "d/" + std::string(256, 'a'); });
  EXPECT_EQ(long_part.rfind("c.json: benchmarks[0].log_name = ", 0), 0u) << long_part;
  EXPECT_NE(long_part.find(": has a part of 256 bytes, more than a file name may hold (255)"),
            std::string::npos)
      << long_part;
  // The file name is at most 240 bytes: the temporary file beside it adds ".tmp.PID". Said
  // naming the config (it was an error about --out).
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][0]["log_name"] = "d/" + std::string(240, 'a'); }),
            "<no error>");
  EXPECT_NE(error_after([](Json& d) {
              d["benchmarks"][0]["log_name"] = "d/" + std::string(241, 'a');
            }).find(": has a file name of 241 bytes, more than the 240 an output file may have"),
            std::string::npos);
  const std::string many = error_after([](Json& d) {
    const Json one = d["benchmarks"][0];
    d["benchmarks"] = Json::array();
    for (int i = 0; i < 1025; ++i) {
      Json b = one;
      b["log_name"] = "l" + std::to_string(i) + ".json";
      d["benchmarks"].push_back(b);
    }
  });
  EXPECT_NE(many.find("holds 1025 benchmarks (with those before it); a config may hold at most 1024"),
            std::string::npos)
      << many.substr(0, 200);
}

TEST(Scenario, PluginsBecomeHostPrograms) {
  const Scenario s = parse_scenario(valid(), "c.json", rtx());
  ASSERT_EQ(s.instances.size(), 3u);
  const auto& a = s.instances[0];
  EXPECT_EQ(a.plugin, "timer_spin");
  EXPECT_EQ(a.thread_count, 256);  // [16, 16] read fully
  EXPECT_EQ(a.release_time, Nanos{250'000'000});
  ASSERT_EQ(a.actions.size(), 1u);
  EXPECT_EQ(a.actions[0].kernel.block_time, Nanos{1500});
  EXPECT_EQ(a.actions[0].kernel.blocks, 4);
  // "~0x3": TPCs 0 and 1 enabled = SMs 0-3 of 38.
  ASSERT_EQ(a.sm_mask.size(), 38u);
  EXPECT_EQ(std::count(a.sm_mask.begin(), a.sm_mask.end(), true), 4);
  EXPECT_TRUE(a.sm_mask[3] && !a.sm_mask[4]);
  const auto& b = s.instances[1];
  // As the examiner's multikernel: a delay first synchronizes the stream, then sleeps.
  ASSERT_EQ(b.actions.size(), 3u);
  EXPECT_EQ(b.actions[1].kind, HostAction::Kind::sync_stream);
  EXPECT_EQ(b.actions[2].delay, Nanos{1'000'000});
  EXPECT_EQ(b.actions[2].kernel.name, "K2");
  const auto& c = s.instances[2];
  EXPECT_TRUE(c.null_stream);
  ASSERT_EQ(c.actions.size(), 3u);
  EXPECT_EQ(c.actions[0].kind, HostAction::Kind::copy);
  EXPECT_EQ(c.actions[1].kernel.shape.shared_memory, 16384);
  EXPECT_TRUE(c.actions[1].kernel.counter_spin);
  EXPECT_EQ(c.actions[1].kernel.blocks, 2);  // defaults to the benchmark's block_count
  EXPECT_EQ(c.actions[2].kind, HostAction::Kind::sync_device);
  EXPECT_EQ(s.max_iterations, 2);
}

TEST(Scenario, BadConfigsNameFilePathAndValue) {
  EXPECT_EQ(
      error_after([](Json& d) { d["benchmarks"][0]["filename"] = "./bin/raytracer.so"; }),
      "c.json: benchmarks[0].filename = \"./bin/raytracer.so\": plugin \"raytracer\" cannot be simulated "
      "(simulated plugins: timer_spin, timer_spin_default_stream, counter_spin, sharedmem_timer_spin, "
      "multikernel, stream_action, matrix_multiply, random_walk, inorder_walk, mandelbrot, cpu_random_walk, "
      "task_host, cufft)");
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][0]["block_count"] = 0; }),
            "c.json: benchmarks[0].block_count = 0: must be in 1..2147483647");
  EXPECT_EQ(
      error_after([](Json& d) { d["benchmarks"][0]["thread_count"] = 2048; }),
      "c.json: benchmarks[0].thread_count = 2048: a block of 2048 threads does not fit rtx3060ti (at most "
      "1024 threads per block, 1536 per SM)");
  EXPECT_EQ(
      error_after([](Json& d) { d["benchmarks"][0]["sm_mask"] = "~0x100000"; }),
      "c.json: benchmarks[0].sm_mask = \"~0x100000\": names unit 20 but rtx3060ti has 19 units of 2 SM(s) "
      "(bits 0..18)");
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][0]["sm_mask"] = "0x7ffff"; }),
            "c.json: benchmarks[0].sm_mask = \"0x7ffff\": disables every SM: no block could ever run");
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][0]["sm_mask"] = "0xzz"; }),
            "c.json: benchmarks[0].sm_mask = \"0xzz\": 'z' is not a hexadecimal digit");
  // On an AMD GPU a libsmctrl mask (set bits disable) would read as a CU mask (set bits enable).
  try {
    parse_scenario(valid(), "c.json", *find_platform_preset("radeon-vii"));
    ADD_FAILURE() << "an sm_mask was accepted on the radeon-vii";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "c.json: benchmarks[0].sm_mask = \"~0x3\": is a libsmctrl (NVIDIA) mask; AMD "
              "GPUs take compute_unit_mask");
  }
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][0]["thread_cnt"] = 1; }),
            "c.json: benchmarks[0].thread_cnt: unknown key (did you mean \"thread_count\"?)");
  EXPECT_EQ(error_after([](Json& d) { d["max_iterations"] = 0; }),
            "c.json: benchmarks[0]: runs forever: max_iterations and max_time are both 0 (unlimited)");
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][0]["additional_info"] = -5; }),
            "c.json: benchmarks[0].additional_info = -5: must be > 0");
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][0]["release_time"] = -1; }),
            "c.json: benchmarks[0].release_time = -1: must be >= 0");
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][1]["log_name"] = "a.json"; }),
            "c.json: benchmarks[1].log_name = \"a.json\": log file \"a.json\" is also written by an earlier "
            "benchmark");
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][1]["additional_info"][0]["block_count"] = 0; }),
            "c.json: benchmarks[1].additional_info[0].block_count = 0: must be in 1..2147483647");
  EXPECT_EQ(
      error_after([](Json& d) { d["benchmarks"][2]["additional_info"]["actions"][1]["type"] = "launch"; }),
      "c.json: benchmarks[2].additional_info.actions[1].type = \"launch\": must be one of \"kernel\", "
      "\"malloc\", \"free\", \"memset\", \"memcpy\", \"synchronize\"");
  EXPECT_EQ(error_after([](Json& d) {
              d["benchmarks"][2]["additional_info"]["actions"][0]["parameters"]["direction"] = "sideways";
            }),
            "c.json: benchmarks[2].additional_info.actions[0].parameters.direction = \"sideways\": must be "
            "\"hostToDevice\", \"deviceToHost\" or \"deviceToDevice\"");
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"] = Json::array(); }),
            "c.json: benchmarks = []: must list at least one benchmark");
  EXPECT_EQ(error_after([](Json& d) { d.erase("name"); }),
            "c.json: (top level): missing required key \"name\"");
  EXPECT_EQ(error_after([](Json& d) {
              d["gpurt_sim"] = Json{{"placement", "random"}};
            }),
            "c.json: gpurt_sim.placement = \"random\": must be \"round-robin\" or \"least-loaded\"");
  // A plugin's cost per operation is bounded where it is written, not blamed later on the
  // duration it multiplies.
  EXPECT_EQ(error_after([](Json& d) {
              d["gpurt_sim"] = Json{{"random_walk_ns_per_access", 2e9}};
            }),
            "c.json: gpurt_sim.random_walk_ns_per_access = 2000000000.0: must be in (0, 1e9] (ns)");
  EXPECT_EQ(error_after([](Json& d) {
              d["gpurt_sim"] = Json{{"copy_bandwidth_bytes_per_s", 1e-300}};
            }),
            "c.json: gpurt_sim.copy_bandwidth_bytes_per_s = 1e-300: must be in 1..1e15 (bytes/s)");
}

// The performance model's memory-bound part: a benchmark declares it ("gpurt_sim":
// {"memory_fraction": F}) for all its kernels, else its plugin's default (1 for the memory walks,
// 0 for the rest); out of [0, 1] or an unknown key is an input error.
TEST(Scenario, BenchmarksDeclareTheirMemoryFraction) {
  Json doc = valid();
  doc["benchmarks"][1]["gpurt_sim"] = Json{{"memory_fraction", 0.25}, {"comment", "mostly compute"}};
  doc["benchmarks"].push_back(parse_json(R"({"filename": "random_walk.so", "log_name": "w.json",
      "thread_count": 64, "block_count": 2, "data_size": 4096, "additional_info": 100})",
                                         "w"));
  const Scenario s = parse_scenario(doc, "c.json", rtx());
  EXPECT_EQ(s.instances[0].actions[0].kernel.memory_fraction, 0.0);  // timer_spin
  for (const HostAction& a : s.instances[1].actions) {               // every multikernel kernel
    if (a.kind == HostAction::Kind::kernel) {
      EXPECT_EQ(a.kernel.memory_fraction, 0.25);
    }
  }
  EXPECT_EQ(s.instances[3].actions[0].kernel.memory_fraction, 1.0);  // random_walk's default
  EXPECT_EQ(error_after([](Json& d) {
              d["benchmarks"][0]["gpurt_sim"] = Json{{"memory_fraction", 1.5}};
            }),
            "c.json: benchmarks[0].gpurt_sim.memory_fraction = 1.5: must be in [0, 1]");
  EXPECT_EQ(error_after([](Json& d) {
              d["benchmarks"][0]["gpurt_sim"] = Json{{"locality", 1}};
            }),
            "c.json: benchmarks[0].gpurt_sim.locality: unknown key (allowed keys: \"memory_fraction\" "
            "\"counter_spin_ns_per_iteration\" \"matrix_multiply_ns_per_fma\" \"random_walk_ns_per_access\" "
            "\"mandelbrot_ns_per_iteration\" \"cpu_random_walk_ns_per_access\" \"comment\")");
}

// "gpurt_whole_sm": true gives every kernel of a spin benchmark a block that holds all of an
// SM's shared memory (one block an SM at a time, whatever its threads); the plugins that size
// their own blocks refuse it.
TEST(Scenario, WholeSmBlocksHoldAllOfAnSmsSharedMemory) {
  Json doc = valid();
  doc["benchmarks"][0]["gpurt_whole_sm"] = true;
  doc["benchmarks"][1]["gpurt_whole_sm"] = true;
  doc["benchmarks"][2]["gpurt_whole_sm"] = false;
  const Platform p = rtx();
  const Scenario s = parse_scenario(doc, "c.json", p);
  EXPECT_TRUE(s.instances[0].actions[0].kernel.whole_sm);
  EXPECT_EQ(s.instances[0].actions[0].kernel.shape.shared_memory, p.shared_memory);
  int kernels = 0;
  for (const HostAction& a : s.instances[1].actions) {  // every multikernel kernel
    if (a.kind != HostAction::Kind::kernel) continue;
    ++kernels;
    EXPECT_TRUE(a.kernel.whole_sm);
    EXPECT_EQ(a.kernel.shape.shared_memory, p.shared_memory);
  }
  EXPECT_GT(kernels, 0);
  for (const HostAction& a : s.instances[2].actions) {
    EXPECT_FALSE(a.kernel.whole_sm);
  }
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][0]["gpurt_whole_sm"] = "yes"; }),
            "c.json: benchmarks[0].gpurt_whole_sm = \"yes\": must be true or false, not a string");
  EXPECT_EQ(error_after([](Json& d) {
              d["benchmarks"].push_back(parse_json(R"({"filename": "random_walk.so", "log_name": "w.json",
                  "thread_count": 64, "block_count": 2, "data_size": 4096, "additional_info": 100,
                  "gpurt_whole_sm": true})",
                                                   "w"));
            }),
            "c.json: benchmarks[3].gpurt_whole_sm = true: is for the spin plugins (timer_spin, "
            "timer_spin_default_stream, counter_spin, sharedmem_timer_spin, multikernel, stream_action), not "
            "random_walk");
}

// Blocks and threads are ints: 2^31 was accepted and wrapped negative (threads) or failed in
// vector::reserve with no path (blocks).
TEST(Scenario, BlockAndThreadCountsStayWithinIntAndThePlatform) {
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][0]["thread_count"] = 2147483648LL; }),
            "c.json: benchmarks[0].thread_count = 2147483648: must be in 1..2147483647");
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][0]["block_count"] = 2147483648LL; }),
            "c.json: benchmarks[0].block_count = 2147483648: must be in 1..2147483647");
  EXPECT_EQ(error_after([](Json& d) {
              d["benchmarks"][0]["block_count"] = Json::array({65536, 32768});
            }),
            "c.json: benchmarks[0].block_count = [65536,32768]: makes 2147483648 in all: at most 2147483647");
  EXPECT_EQ(
      error_after([](Json& d) { d["benchmarks"][1]["additional_info"][0]["thread_count"] = 2147483648LL; }),
      "c.json: benchmarks[1].additional_info[0].thread_count = 2147483648: must be in 1..2147483647");
  // Threads are checked against the platform even where the plugin sizes its own kernels.
  EXPECT_EQ(error_after([](Json& d) {
              d["benchmarks"][2]["thread_count"] = Json::array({1024, 2});
            }),
            "c.json: benchmarks[2].thread_count = [1024,2]: a block of 2048 threads does not fit rtx3060ti "
            "(at most "
            "1024 threads per block, 1536 per SM)");
  EXPECT_EQ(
      error_after([](Json& d) { d["benchmarks"][1]["thread_count"] = 1025; }),
      "c.json: benchmarks[1].thread_count = 1025: a block of 1025 threads does not fit rtx3060ti (at most "
      "1024 threads per block, 1536 per SM)");
  Json doc = valid();
  doc["benchmarks"][0]["block_count"] = 2147483647;
  doc["benchmarks"][0]["thread_count"] = 1024;
  // One launch of 2^31 - 1 blocks passes the default gpurt_sim.max_blocks (refused as read);
  // a run allowed more (--max-blocks) reads it.
  EXPECT_NE(error_after([](Json& d) {
              d["benchmarks"][0]["block_count"] = 2147483647;
              d["benchmarks"][0]["thread_count"] = 1024;
            }).find("launches a kernel of 2147483647 blocks"),
            std::string::npos);
  const Scenario s = parse_scenario(doc, "c.json", rtx(), {}, ConfigLimits{std::int64_t{1} << 40});
  EXPECT_EQ(s.sim.max_blocks, std::int64_t{1} << 40);
  EXPECT_EQ(s.instances[0].block_count, 2147483647);
  EXPECT_EQ(s.instances[0].actions[0].kernel.blocks, 2147483647);
  EXPECT_EQ(s.instances[0].thread_count, 1024);
}

// gpurt_sim.max_blocks and max_kernels may lower what the run allows (--max-blocks,
// --max-kernels; ConfigLimits), never raise it: a config that set both to 2^40 grew by 300 MB a
// second. Without the keys the run's limits apply.
TEST(Scenario, AConfigMayLowerItsLimitsButNotRaiseThem) {
  EXPECT_EQ(error_after([](Json& d) {
              d["gpurt_sim"] = Json{{"max_blocks", 10'000'001}};
            }),
            "c.json: gpurt_sim.max_blocks = 10000001: is above the 10000000 this run allows (--max-blocks "
            "raises that; a config may only lower it)");
  EXPECT_EQ(error_after([](Json& d) {
              d["gpurt_sim"] = Json{{"max_kernels", 1'000'001}};
            }),
            "c.json: gpurt_sim.max_kernels = 1000001: is above the 1000000 this run allows (--max-kernels "
            "raises that; a config may only lower it)");
  Json doc = valid();
  const ConfigLimits more{20'000'000, 3'000'000};
  Scenario s = parse_scenario(doc, "c.json", rtx(), {}, more);
  EXPECT_EQ(s.sim.max_blocks, 20'000'000);
  EXPECT_EQ(s.sim.max_kernels, 3'000'000);
  doc["gpurt_sim"] = Json{{"max_blocks", 15'000'000}, {"max_kernels", 50}};
  s = parse_scenario(doc, "c.json", rtx(), {}, more);
  EXPECT_EQ(s.sim.max_blocks, 15'000'000);
  EXPECT_EQ(s.sim.max_kernels, 50);
  s = parse_scenario(valid(), "c.json", rtx());
  EXPECT_EQ(s.sim.max_blocks, kDefaultMaxBlocks);
  EXPECT_EQ(s.sim.max_kernels, kDefaultMaxKernels);
}

// A result file name stays inside the output folder (it is joined to --out).
TEST(Scenario, LogNamesStayInsideTheOutputFolder) {
  const auto with_log = [](const std::string& name) {
    return error_after([&](Json& d) { d["benchmarks"][0]["log_name"] = name; });
  };
  EXPECT_EQ(with_log("../escaped/x.json"),
            "c.json: benchmarks[0].log_name = \"../escaped/x.json\": must stay inside the output folder (a "
            "\"..\" part is not allowed)");
  EXPECT_EQ(with_log("sub/../../x.json"),
            "c.json: benchmarks[0].log_name = \"sub/../../x.json\": must stay inside the output folder (a "
            "\"..\" part is not allowed)");
  EXPECT_EQ(with_log(".."),
            "c.json: benchmarks[0].log_name = \"..\": must stay inside the output folder (a "
            "\"..\" part is not allowed)");
  EXPECT_EQ(with_log("/tmp/escaped.json"),
            "c.json: benchmarks[0].log_name = \"/tmp/escaped.json\": must be a file name inside the output "
            "folder, not an absolute path");
  EXPECT_EQ(with_log("sub/"), "c.json: benchmarks[0].log_name = \"sub/\": must name a file, not a folder");
  EXPECT_EQ(with_log("."), "c.json: benchmarks[0].log_name = \".\": must name a file, not a folder");
  EXPECT_EQ(with_log(""), "c.json: benchmarks[0].log_name = \"\": must not be empty");
  // Two spellings of one file are one file.
  EXPECT_EQ(
      error_after([](Json& d) { d["benchmarks"][1]["log_name"] = "./a.json"; }),
      "c.json: benchmarks[1].log_name = \"./a.json\": log file \"a.json\" is also written by an earlier "
      "benchmark");
  // Sub-folders of the output folder and dots inside a name are fine.
  Json doc = valid();
  doc["benchmarks"][0]["log_name"] = "runs/./1//a..b.json";
  EXPECT_EQ(parse_scenario(doc, "c.json", rtx()).instances[0].log_name, "runs/1/a..b.json");
  // A file name gpurt prints must not drive the terminal.
  EXPECT_NE(with_log("a\x1b.json").find("benchmarks[0].log_name = "), std::string::npos);
  EXPECT_NE(with_log("a\x1b.json").find("holds a control character"), std::string::npos);
}

// Labels and the config's name are printed in the summary table: a control character (an
// escape sequence that would drive the terminal) is bad input, naming the path; empty is fine.
TEST(Scenario, LabelsHoldNoControlCharacters) {
  const std::vector<std::pair<std::string, std::function<void(Json&, const std::string&)>>> places = {
      {"name", [](Json& d, const std::string& v) { d["name"] = v; }},
      {"benchmarks[0].label", [](Json& d, const std::string& v) { d["benchmarks"][0]["label"] = v; }},
      {"benchmarks[1].additional_info[0].kernel_label",
       [](Json& d, const std::string& v) { d["benchmarks"][1]["additional_info"][0]["kernel_label"] = v; }},
      {"benchmarks[2].additional_info.actions[1].label", [](Json& d, const std::string& v) {
         d["benchmarks"][2]["additional_info"]["actions"][1]["label"] = v;
       }}};
  for (const auto& [path, set] : places) {
    const std::string error = error_after([&](Json& d) { set(d, "a\x1b[2J"); });
    EXPECT_NE(error.find("c.json: " + path + " = "), std::string::npos) << error;
    EXPECT_NE(error.find("holds a control character"), std::string::npos) << error;
    EXPECT_EQ(error_after([&](Json& d) { set(d, ""); }), "<no error>") << path;
  }
}

// A log_name that is the folder of another ("sub" and "sub/c.json") is bad input when the
// config is read, either way round (it failed after the whole run, leaving an empty folder).
TEST(Scenario, ALogNameIsNotTheFolderOfAnother) {
  EXPECT_EQ(error_after([](Json& d) {
              d["benchmarks"][0]["log_name"] = "sub";
              d["benchmarks"][1]["log_name"] = "sub/c.json";
            }),
            "c.json: benchmarks[1].log_name = \"sub/c.json\": its folder \"sub\" is a log file of an earlier "
            "benchmark");
  EXPECT_EQ(error_after([](Json& d) {
              d["benchmarks"][0]["log_name"] = "sub/x/c.json";
              d["benchmarks"][1]["log_name"] = "./sub";
            }),
            "c.json: benchmarks[1].log_name = \"./sub\": is the folder of log file \"sub/x/c.json\" of an "
            "earlier benchmark");
  EXPECT_EQ(error_after([](Json& d) {
              d["benchmarks"][0]["log_name"] = "sub/a.json";
              d["benchmarks"][1]["log_name"] = "sub.json";
              d["benchmarks"][2]["log_name"] = "sub/b.json";
            }),
            "<no error>");
}

// The NULL stream takes no SM mask and no priority: an instance on it that sets either gets a
// warning naming the key (the mask was dropped silently).
TEST(Scenario, MaskAndPriorityOnTheNullStreamWarn) {
  Json doc = valid();
  doc["benchmarks"][0]["filename"] = "timer_spin_default_stream.so";
  doc["benchmarks"][0]["stream_priority"] = -1;
  const Scenario s = parse_scenario(doc, "c.json", rtx());
  ASSERT_EQ(s.warnings.size(), 2U);
  EXPECT_EQ(
      s.warnings[0],
      "c.json: benchmarks[0].sm_mask = \"~0x3\": ignored: the instance runs on the NULL stream, which takes "
      "no SM mask");
  EXPECT_EQ(
      s.warnings[1],
      "c.json: benchmarks[0].stream_priority = -1: ignored: the instance runs on the NULL stream, whose "
      "priority is 0");
  doc["benchmarks"][0]["filename"] = "timer_spin.so";
  EXPECT_TRUE(parse_scenario(doc, "c.json", rtx()).warnings.empty());
}

// The examiner's random_walk walks 1000 reads per thread when additional_info is absent
// (its DEFAULT_MEMORY_ACCESS_COUNT); every other plugin still needs additional_info.
TEST(Scenario, RandomWalkWithoutAdditionalInfoWalksTheExaminersDefault) {
  Json doc = valid();
  doc["benchmarks"][0] = Json::parse(R"({"filename": "./bin/random_walk.so", "log_name": "w.json",
      "thread_count": 32, "block_count": 1, "data_size": 16777216})");
  const Scenario s = parse_scenario(doc, "c.json", rtx());
  const ScenarioInstance& w = s.instances[0];
  EXPECT_EQ(w.walk_reads, 1000);
  ASSERT_EQ(w.actions.size(), 1u);
  EXPECT_EQ(w.actions[0].kernel.block_time,
            Nanos{static_cast<std::int64_t>(1000 * s.sim.random_walk_ns_per_access)});
  EXPECT_TRUE(w.additional_info.is_null());
  doc["benchmarks"][0]["additional_info"] = 250;
  EXPECT_EQ(parse_scenario(doc, "c.json", rtx()).instances[0].walk_reads, 250);
  // A plugin without a default in the examiner still needs it; timer_spin has one (10 ms).
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][1].erase("additional_info"); }),
            "c.json: benchmarks[1]: missing required key \"additional_info\"");
  Json spin = valid();
  spin["benchmarks"][0].erase("additional_info");
  EXPECT_EQ(parse_scenario(spin, "c.json", rtx()).instances[0].actions.at(0).kernel.block_time,
            Nanos{10'000'000});
}

// The examiner's multikernel keys (issue 16): per-kernel sm_mask, shared_memory_size and copies.
TEST(Scenario, MultikernelReadsEveryKeyOfTheExaminersPlugin) {
  Json doc = valid();
  doc["benchmarks"][1]["additional_info"][0].update(Json{
      {"sm_mask", "~0x1"}, {"shared_memory_size", 8192}, {"copy_in_count", 100}, {"copy_out_count", 50}});
  const Scenario s = parse_scenario(doc, "c.json", rtx());
  const auto& a = s.instances[1].actions;
  ASSERT_EQ(a.size(), 5u);  // copy in, K1, copy out, sync (K2's delay), K2
  EXPECT_EQ(a[0].kind, HostAction::Kind::copy);
  EXPECT_EQ(a[0].bytes, 400);
  EXPECT_EQ(a[0].direction, CopyDirection::host_to_device);
  EXPECT_EQ(a[1].kernel.shape.shared_memory, 32768);
  ASSERT_EQ(a[1].kernel.sm_mask.size(), 38u);
  EXPECT_EQ(std::count(a[1].kernel.sm_mask.begin(), a[1].kernel.sm_mask.end(), true), 2);  // TPC 0
  EXPECT_EQ(a[2].bytes, 200);
  EXPECT_EQ(a[2].direction, CopyDirection::device_to_host);
  EXPECT_TRUE(s.warnings.empty());
  // Everything else stays strict.
  EXPECT_EQ(
      error_after([](Json& d) { d["benchmarks"][1]["additional_info"][0]["shared_memory_size"] = 100; }),
      "c.json: benchmarks[1].additional_info[0].shared_memory_size = 100: must be 0, 4096, 8192 or 10240");
  EXPECT_EQ(error_after([](Json& d) { d["benchmarks"][1]["additional_info"][0]["copy_in_count"] = -1; }),
            "c.json: benchmarks[1].additional_info[0].copy_in_count = -1: must be in 0..2147483647");
  EXPECT_NE(error_after([](Json& d) {
              d["benchmarks"][1]["additional_info"][0]["copy_count"] = 1;
            }).find("copy_count: unknown key"),
            std::string::npos);
}

// A mask naming TPCs the GPU lacks: a warning, as libsmctrl ignores those bits; no TPC left: an error.
TEST(Scenario, MaskBitsBeyondTheGpuWarn) {
  Json doc = valid();
  doc["benchmarks"][0]["sm_mask"] = "0xfff00000";  // disables TPCs 20..31 of 19
  const Scenario s = parse_scenario(doc, "c.json", rtx());
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0],
            "c.json: benchmarks[0].sm_mask = \"0xfff00000\": names unit 20 but rtx3060ti has 19 units of 2 "
            "SM(s) (bits 0..18); the bits above are ignored, as libsmctrl ignores them");
  EXPECT_EQ(std::count(s.instances[0].sm_mask.begin(), s.instances[0].sm_mask.end(), true), 38);
}

// task_host: strict about what the simulator cannot model.
TEST(Scenario, TaskHostRefusesWhatItCannotModel) {
  const auto host = [](Json nested_extra, Json top_extra) {
    Json nested{
        {"name", "n"},
        {"max_iterations", 1},
        {"max_time", 0},
        {"benchmarks",
         {{{"filename", "timer_spin"}, {"thread_count", 32}, {"block_count", 1}, {"additional_info", 10}}}}};
    if (!nested_extra.is_null()) nested.update(nested_extra);
    Json doc{{"name", "h"},
             {"max_iterations", 1},
             {"max_time", 0},
             {"benchmarks",
              {{{"filename", "task_host"},
                {"thread_count", 0},
                {"block_count", 0},
                {"additional_info", nested}}}}};
    if (!top_extra.is_null()) doc.update(top_extra);
    try {
      (void)parse_scenario(doc, "h.json", rtx());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  EXPECT_EQ(host({}, {}), "<no error>");
  EXPECT_NE(host({}, {{"max_iterations", 2}}).find("models exactly one iteration"), std::string::npos);
  EXPECT_NE(host({}, {{"do_warmup", true}}).find("do_warmup"), std::string::npos);
  EXPECT_EQ(host({{"sync_every_iteration", true}}, {}),
            "h.json: benchmarks[0].additional_info.sync_every_iteration = true: is not simulated inside a "
            "task_host");
  EXPECT_NE(host({{"gpurt_sim", Json::object()}}, {}).find("additional_info.gpurt_sim: unknown key"),
            std::string::npos);
  EXPECT_NE(
      host({{"benchmarks", {{{"filename", "multikernel"}, {"thread_count", 32}, {"block_count", 1}}}}}, {})
          .find("additional_info.benchmarks[0]: missing required key \"additional_info\""),
      std::string::npos);
}
