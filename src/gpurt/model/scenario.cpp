#include "gpurt/model/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/model/amd_cu_layout.hpp"
#include "gpurt/model/scenario_workloads.hpp"

namespace gpurt {

namespace {

// Blocks in a grid and threads in a block are ints in the simulator and in result files: at
// most 2^31 - 1 in all (CUDA's limit on a grid's x dimension). Threads are further limited by
// the platform (check_threads).
constexpr std::int64_t kMaxCount = INT32_MAX;
constexpr std::size_t kMaxInstances = 1024;  // benchmarks in a config, nested ones included

const std::vector<std::string>& plugin_list() {
  static const std::vector<std::string> names = {"timer_spin",
                                                 "timer_spin_default_stream",
                                                 "counter_spin",
                                                 "sharedmem_timer_spin",
                                                 "multikernel",
                                                 "stream_action",
                                                 "matrix_multiply",
                                                 "random_walk",
                                                 "inorder_walk",
                                                 "mandelbrot",
                                                 "cpu_random_walk",
                                                 "task_host",
                                                 "cufft"};
  return names;
}

// What the reader of one (possibly nested) config needs besides the JSON.
struct Reader {
  Scenario& s;
  const Platform& p;
  const std::vector<std::string>& unmodelled;
  std::set<std::string> logs;
  int next_process = 1;  // 0: the threads of the top-level config

  void warn(const JsonNode& node, std::string_view what) {
    s.warnings.push_back(fmt::format("{}: {} = {}: {}", node.file(), node.path(), node.brief(), what));
  }
};

// The settings a config's benchmarks inherit (the top level's, or a task_host's nested config's).
struct Defaults {
  std::int64_t max_iterations = 0;
  Nanos max_time{0};
  bool use_processes = false;
  int thread_process = 0;  // the process that benchmarks run in when use_processes is false
  Nanos release_base{0};   // a nested config starts when its task_host's iteration does
  int parent = -1;
};

// "./bin/timer_spin.so" -> "timer_spin".
std::string plugin_name(const std::string& filename) {
  std::string base = filename.substr(filename.find_last_of('/') + 1);
  if (base.size() > 3 && base.compare(base.size() - 3, 3, ".so") == 0) base.resize(base.size() - 3);
  return base;
}

// A number of blocks or threads: a positive integer or an array of up to three (dimensions).
int read_dims(const JsonNode& node, bool allow_zero) {
  std::int64_t product = 1;
  if (node.is_array()) {
    const auto dims = node.items();
    if (dims.empty() || dims.size() > 3) node.fail("must be a number or an array of 1 to 3 numbers");
    for (const JsonNode& d : dims) product *= d.as_int_in(allow_zero ? 0 : 1, 1 << 20);  // < 2^61 in all
  } else {
    product = node.as_int_in(allow_zero ? 0 : 1, kMaxCount);
  }
  if (product > kMaxCount) node.fail(fmt::format("makes {} in all: at most {}", product, kMaxCount));
  return static_cast<int>(product);
}

// A result file name must stay inside the output folder: relative, without a ".." part, naming
// a file. Returned without "." and empty parts ("./a//b.json" -> "a/b.json"), so that two names
// of one file are seen to be the same.
std::string read_log_name(const JsonNode& node) {
  const std::string name = node.as_string();
  if (name.empty()) node.fail("must not be empty");
  if (name.front() == '/') node.fail("must be a file name inside the output folder, not an absolute path");
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (control_character_at(name, i) > 0)
      node.fail("holds a control character; it names a file gpurt prints");
  }
  std::string out;
  for (std::size_t start = 0;;) {
    const std::size_t end = name.find('/', start);
    const std::string_view part = std::string_view(name).substr(start, end - start);  // to the end if npos
    if (part == "..") node.fail("must stay inside the output folder (a \"..\" part is not allowed)");
    if (part.size() > 255)
      node.fail(fmt::format("has a part of {} bytes, more than a file name may hold (255)", part.size()));
    if (end == std::string::npos) {
      if (part.empty() || part == ".") node.fail("must name a file, not a folder");
      // Said here, naming the config: the temporary file an atomic write makes beside it adds
      // ".tmp.PID" (check_output_file_name, which named --out for it).
      if (part.size() > kMaxOutputFileName)
        node.fail(
            fmt::format("has a file name of {} bytes, more than the {} an output file may have (the "
                        "temporary file written beside it adds \".tmp.PID\")",
                        part.size(), kMaxOutputFileName));
      return out.append(part);
    }
    if (!part.empty() && part != ".") out.append(part).push_back('/');
    start = end + 1;
  }
}

void check_time_bound(Nanos t, const JsonNode& node) {
  if (t > kMaxScenarioTime) node.fail("must be at most 10^6 s (gpurt's bound on every time in a config)");
}

// A time in seconds, >= 0 and at most kMaxScenarioTime.
Nanos seconds(const JsonNode& node) {
  const Nanos t = node.as_nonnegative_time(TimeUnit::s, Rounding::nearest);
  check_time_bound(t, node);
  return t;
}

void check_threads(int threads, const Platform& p, const JsonNode& where) {
  if (threads > p.max_threads_per_block || threads > p.max_threads) {
    where.fail(fmt::format("a block of {} threads does not fit {} (at most {} threads per block, {} per SM)",
                           threads, p.id, p.max_threads_per_block, p.max_threads));
  }
}

// Checks that one block of `k` fits an SM of the platform (Rule B2 could never hold otherwise).
void check_fits(const KernelSpec& k, const Platform& p, const JsonNode& where) {
  check_threads(k.shape.threads, p, where);
  if (k.shape.shared_memory > p.shared_memory) {
    where.fail(fmt::format("a block with {} bytes of shared memory does not fit {} ({} per SM)",
                           k.shape.shared_memory, p.id, p.shared_memory));
  }
  if (k.shape.registers > p.registers) {
    where.fail(fmt::format("a block with {} registers does not fit {} ({} per SM)", k.shape.registers, p.id,
                           p.registers));
  }
}

std::vector<bool> parse_sm_mask(const JsonNode& node, const Platform& p, Reader& r) {
  std::string text = node.as_string();
  bool enabled_bits = false;  // libsmctrl convention: a set bit DISABLES a TPC, "~" inverts
  if (!text.empty() && text[0] == '~') {
    enabled_bits = true;
    text.erase(0, 1);
  }
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.erase(0, 2);
  if (text.empty()) node.fail("must be a hexadecimal mask such as \"0xff00\" or \"~0x3\"");
  const int units = p.units();
  const std::vector<bool> bit = hex_bits(node, text);
  // Bits above the GPU's units name TPCs it does not have: libsmctrl ignores them, and so does
  // the examiner's GPU run; a warning says so, while a mask that enables no existing unit stays
  // an error.
  std::size_t beyond = 0;  // the first such bit (0: none)
  for (std::size_t u = static_cast<std::size_t>(units); u < bit.size() && beyond == 0; ++u) {
    if (bit[u]) beyond = u;
  }
  const std::string names_beyond = fmt::format("names unit {} but {} has {} units of {} SM(s) (bits 0..{})",
                                               beyond, p.id, units, p.partition_unit, units - 1);
  std::vector<bool> sms(static_cast<std::size_t>(p.sms), false);
  int enabled = 0;
  for (int u = 0; u < units; ++u) {
    const bool set = static_cast<std::size_t>(u) < bit.size() && bit[static_cast<std::size_t>(u)];
    if (set != enabled_bits) continue;  // disabled
    for (int s = u * p.partition_unit; s < (u + 1) * p.partition_unit; ++s) {
      sms[static_cast<std::size_t>(s)] = true;
      ++enabled;
    }
  }
  if (enabled == 0) node.fail(beyond > 0 ? names_beyond : "disables every SM: no block could ever run");
  if (beyond > 0) r.warn(node, names_beyond + "; the bits above are ignored, as libsmctrl ignores them");
  return sms;
}

// A spin kernel; `duration` in ns (timer) or iterations (counter). A plugin's additional_info
// may give it as a string of digits (`info`: the older examiner's reading, with a warning).
KernelSpec spin_kernel(const std::string& name, int blocks, int threads, const JsonNode& duration,
                       bool counter, const SimOptions& sim, Reader& r, bool info = false) {
  KernelSpec k;
  k.name = name;
  k.blocks = blocks;
  k.shape.threads = threads;
  k.counter_spin = counter;
  if (counter) {
    k.counter_iterations = info ? detail::info_integer(duration, 1, std::int64_t{1} << 50, r.s.warnings)
                                : duration.as_int_in(1, std::int64_t{1} << 50);
    k.block_time =
        detail::model_time(static_cast<double>(k.counter_iterations) * sim.counter_spin_ns_per_iteration,
                           duration, "a block time");
  } else if (info && duration.is_string()) {
    k.block_time = Nanos{detail::info_integer(duration, 1, kMaxScenarioTime.count(), r.s.warnings)};
  } else {
    k.block_time = duration.as_positive_time(TimeUnit::ns, Rounding::up);
    check_time_bound(k.block_time, duration);
  }
  return k;
}

// The examiner's shared-memory spin kernels: a count of 32-bit integers, one of a fixed few.
std::int64_t shared_ints(const JsonNode& node, bool allow_zero) {
  const std::int64_t ints = node.as_int();
  if ((ints != 0 || !allow_zero) && ints != 4096 && ints != 8192 && ints != 10240)
    node.fail(allow_zero ? "must be 0, 4096, 8192 or 10240" : "must be 4096, 8192 or 10240");
  return ints;
}

// multikernel: the kernels in one stream, each optionally with copies around it, its own SM mask
// and a delay; as the examiner's plugin: a delay > 0 first synchronizes the stream, then sleeps.
void read_multikernel(const JsonNode& info, ScenarioInstance& inst, const Platform& p, const SimOptions& sim,
                      Reader& r) {
  const auto kernels = info.items();
  if (kernels.empty()) info.fail("must list at least one kernel");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const JsonNode& k = kernels[i];
    k.expect_object({"kernel_label", "duration", "block_count", "thread_count", "delay", "sm_mask",
                     "shared_memory_size", "copy_in_count", "copy_out_count", "comment"});
    HostAction a;
    a.kind = HostAction::Kind::kernel;
    a.label = k.has("kernel_label") ? k.at("kernel_label").as_label() : fmt::format("K{}", i + 1);
    Nanos delay{0};
    if (auto d = k.find("delay")) delay = seconds(*d);
    a.kernel = spin_kernel(a.label, read_dims(k.at("block_count"), false),
                           read_dims(k.at("thread_count"), false), k.at("duration"), false, sim, r);
    if (auto v = k.find("shared_memory_size")) a.kernel.shape.shared_memory = shared_ints(*v, true) * 4;
    if (auto v = k.find("sm_mask")) {
      if (p.vendor == Vendor::amd) v->fail("is a libsmctrl (NVIDIA) mask; AMD GPUs take compute_unit_mask");
      a.kernel.sm_mask = parse_sm_mask(*v, p, r);
    }
    check_fits(a.kernel, p, k);
    std::int64_t copy_in = 0, copy_out = 0;  // 32-bit integers (valueint in the examiner)
    if (auto v = k.find("copy_in_count")) copy_in = v->as_int_in(0, INT32_MAX);
    if (auto v = k.find("copy_out_count")) copy_out = v->as_int_in(0, INT32_MAX);
    if (delay.count() > 0) {
      HostAction sync;
      sync.kind = HostAction::Kind::sync_stream;
      sync.label = a.label + " delay";
      inst.actions.push_back(std::move(sync));
    }
    if (copy_in > 0) {
      HostAction c;
      c.kind = HostAction::Kind::copy;
      c.label = a.label + " copy in";
      c.bytes = copy_in * 4;
      c.direction = CopyDirection::host_to_device;
      c.delay = delay;
      delay = Nanos{0};
      inst.actions.push_back(std::move(c));
    }
    a.delay = delay;
    inst.actions.push_back(std::move(a));
    if (copy_out > 0) {
      HostAction c;
      c.kind = HostAction::Kind::copy;
      c.label = inst.actions.back().label + " copy out";
      c.bytes = copy_out * 4;
      c.direction = CopyDirection::device_to_host;
      inst.actions.push_back(std::move(c));
    }
  }
}

HostAction read_stream_action(const JsonNode& node, const ScenarioInstance& inst, const Platform& p,
                              const SimOptions& sim, Reader& r) {
  node.expect_object({"delay", "type", "label", "parameters", "comment"});
  HostAction a;
  if (auto d = node.find("delay")) a.delay = seconds(*d);
  const JsonNode type = node.at("type");
  const std::string t = type.as_string();
  a.label = node.has("label") ? node.at("label").as_label() : t;
  const auto params = node.find("parameters");
  auto param = [&](std::string_view key) { return params ? params->find(key) : std::nullopt; };
  if (t == "kernel") {
    if (!params) node.fail("a kernel action needs \"parameters\" with a \"duration\"");
    params->expect_object(
        {"type", "duration", "shared_memory_size", "block_count", "thread_count", "comment"});
    bool counter = false;
    if (auto kt = param("type")) {
      const std::string s = kt->as_string();
      if (s == "counter_spin")
        counter = true;
      else if (s != "timer_spin")
        kt->fail("must be \"timer_spin\" or \"counter_spin\"");
    }
    const int blocks = param("block_count") ? read_dims(*param("block_count"), false) : inst.block_count;
    const int threads = param("thread_count") ? read_dims(*param("thread_count"), false) : inst.thread_count;
    if (blocks < 1)
      node.fail("kernel has zero blocks (set parameters.block_count or the benchmark's block_count)");
    if (threads < 1) node.fail("kernel has zero threads per block");
    a.kind = HostAction::Kind::kernel;
    a.kernel = spin_kernel(a.label, blocks, threads, params->at("duration"), counter, sim, r);
    if (auto sm = param("shared_memory_size")) a.kernel.shape.shared_memory = shared_ints(*sm, true) * 4;
    check_fits(a.kernel, p, node);
  } else if (t == "malloc" || t == "free") {
    a.kind = t == "malloc" ? HostAction::Kind::malloc : HostAction::Kind::free;
    if (params) params->expect_object({"host", "size", "comment"});
    if (auto h = param("host")) a.host_memory = h->as_bool();
    if (a.kind == HostAction::Kind::malloc) a.bytes = params ? params->at("size").as_int_in(1, INT64_MAX) : 1;
  } else if (t == "memset") {
    a.kind = HostAction::Kind::memset;
    if (!params) node.fail("a memset action needs \"parameters\" with a \"size\"");
    params->expect_object({"async", "size", "comment"});
    a.bytes = params->at("size").as_int_in(1, INT64_MAX);
    if (auto as = param("async")) a.synchronous = !as->as_bool();
  } else if (t == "memcpy") {
    a.kind = HostAction::Kind::copy;
    if (!params) node.fail("a memcpy action needs \"parameters\" with \"size\" and \"direction\"");
    params->expect_object({"async", "size", "direction", "comment"});
    a.bytes = params->at("size").as_int_in(1, INT64_MAX);
    if (auto as = param("async")) a.synchronous = !as->as_bool();
    const JsonNode dir = params->at("direction");
    const std::string d = dir.as_string();
    if (d == "hostToDevice")
      a.direction = CopyDirection::host_to_device;
    else if (d == "deviceToHost")
      a.direction = CopyDirection::device_to_host;
    else if (d == "deviceToDevice")
      a.direction = CopyDirection::device_to_device;
    else
      dir.fail("must be \"hostToDevice\", \"deviceToHost\" or \"deviceToDevice\"");
  } else if (t == "synchronize") {
    if (params) params->expect_object({"device", "comment"});
    const bool device = param("device") ? param("device")->as_bool() : false;
    a.kind = device ? HostAction::Kind::sync_device : HostAction::Kind::sync_stream;
  } else {
    type.fail("must be one of \"kernel\", \"malloc\", \"free\", \"memset\", \"memcpy\", \"synchronize\"");
  }
  return a;
}

// The plugins' time models (docs/bench.md "Timing models"): a config's "gpurt_sim" sets them for
// every benchmark, a benchmark's own "gpurt_sim" for its kernels alone.
constexpr std::string_view kWorkloadCostKeys[] = {
    "counter_spin_ns_per_iteration", "matrix_multiply_ns_per_fma", "random_walk_ns_per_access",
    "mandelbrot_ns_per_iteration", "cpu_random_walk_ns_per_access"};

// Bounded so that a block's time is named here when it would be absurd, not later at the
// benchmark whose duration it multiplies: a second per operation at most.
constexpr double kMaxWorkloadCost = 1e9;

void read_workload_costs(const JsonNode& node, SimOptions& o) {
  double* const out[] = {&o.counter_spin_ns_per_iteration, &o.matrix_multiply_ns_per_fma,
                         &o.random_walk_ns_per_access, &o.mandelbrot_ns_per_iteration,
                         &o.cpu_random_walk_ns_per_access};
  for (std::size_t i = 0; i < std::size(kWorkloadCostKeys); ++i) {
    if (auto v = node.find(std::string(kWorkloadCostKeys[i]))) {
      *out[i] = v->as_number();
      if (!(*out[i] > 0 && *out[i] <= kMaxWorkloadCost)) v->fail("must be in (0, 1e9] (ns)");
    }
  }
}

SimOptions read_sim_options(const JsonNode& node) {
  node.expect_object({"launch_latency_ns", "launch_call_ns", "sync_latency_ns", "time_slice_ns",
                      "context_switch_ns", "copy_bandwidth_bytes_per_s", "copy_latency_ns",
                      "memset_bandwidth_bytes_per_s", "counter_spin_ns_per_iteration", "placement",
                      "matrix_multiply_ns_per_fma", "random_walk_ns_per_access",
                      "mandelbrot_ns_per_iteration", "cpu_random_walk_ns_per_access", "max_kernels",
                      "max_blocks", "model", "seed", "comment"});
  SimOptions o;
  if (auto v = node.find("model")) {
    const std::string m = v->as_string();
    if (m != "ideal" && m != "calibrated") v->fail("must be \"ideal\" or \"calibrated\"");
    o.ideal_model = m == "ideal";
  }
  if (auto v = node.find("seed")) o.seed = v->as_uint64();
  if (auto v = node.find("max_kernels")) o.max_kernels = v->as_int_in(1, std::int64_t{1} << 40);
  if (auto v = node.find("max_blocks")) o.max_blocks = v->as_int_in(1, std::int64_t{1} << 40);
  auto ns = [&](std::string_view key, Nanos& out) {
    if (auto v = node.find(key)) {
      out = v->as_nonnegative_time(TimeUnit::ns, Rounding::nearest);
      check_time_bound(out, *v);
    }
  };
  ns("launch_latency_ns", o.launch_latency);
  ns("launch_call_ns", o.launch_call);
  ns("sync_latency_ns", o.sync_latency);
  ns("time_slice_ns", o.time_slice);
  ns("context_switch_ns", o.context_switch);
  ns("copy_latency_ns", o.copy_latency);
  if (o.time_slice < kMinTimeSlice) node.at("time_slice_ns").fail("must be at least 1000 (1 us)");
  // At least a byte a second (the workload costs: kMaxWorkloadCost).
  constexpr double kMaxBandwidth = 1e15;
  for (const auto& [key, out] :
       {std::pair<std::string_view, double*>{"copy_bandwidth_bytes_per_s", &o.copy_bandwidth},
        {"memset_bandwidth_bytes_per_s", &o.memset_bandwidth}}) {
    if (auto v = node.find(key)) {
      *out = v->as_number();
      if (!(*out >= 1 && *out <= kMaxBandwidth)) v->fail("must be in 1..1e15 (bytes/s)");
    }
  }
  read_workload_costs(node, o);
  if (auto v = node.find("placement")) {
    o.placement = v->as_string();
    if (o.placement != "round-robin" && o.placement != "least-loaded") {
      v->fail("must be \"round-robin\" or \"least-loaded\"");
    }
  }
  return o;
}

// Every copy and memset of a program takes at most kMaxScenarioTime at the configured bandwidths
// (the simulator computes them the same way, sim/host.cpp), so no time in a run overflows.
// A kernel of more blocks than gpurt_sim.max_blocks would stop the run at its first launch: said
// here, exit 2, naming the benchmark (a 2^31-block grid ran 2.6 s and 400 MB before it stopped).
void check_program_times(const ScenarioInstance& inst, const SimOptions& sim, const JsonNode& b) {
  for (const HostAction& a : inst.actions) {
    if (a.kind == HostAction::Kind::kernel && a.kernel.blocks > sim.max_blocks) {
      (b.has("block_count") ? b.at("block_count") : b)
          .fail(
              fmt::format("launches a kernel of {} blocks (\"{}\"), more than gpurt_sim.max_blocks ({}) lets "
                          "one run start",
                          a.kernel.blocks, a.label, sim.max_blocks));
    }
    if (a.kind == HostAction::Kind::copy) {
      (void)detail::model_time(static_cast<double>(sim.copy_latency.count()) +
                                   static_cast<double>(a.bytes) / sim.copy_bandwidth * 1e9,
                               b, fmt::format("a copy of {} bytes (\"{}\")", a.bytes, a.label));
    } else if (a.kind == HostAction::Kind::memset) {
      (void)detail::model_time(static_cast<double>(a.bytes) / sim.memset_bandwidth * 1e9, b,
                               fmt::format("a memset of {} bytes (\"{}\")", a.bytes, a.label));
    }
  }
}

void read_benchmarks(const JsonNode& benchmarks, const Defaults& d, Reader& r);

// task_host: additional_info is a whole config whose benchmarks run inside this instance's
// process (as its threads, or as processes of their own with use_processes) when its one
// iteration starts; the iteration ends when all of them have finished.
void read_task_host(const JsonNode& b, const JsonNode& info, const ScenarioInstance& inst, int index,
                    Reader& r) {
  if (inst.max_iterations != 1) {
    (b.has("max_iterations") ? b.at("max_iterations") : b)
        .fail(
            "a task_host runs its nested config once per iteration; the simulator models exactly one "
            "iteration (set max_iterations to 1)");
  }
  if (r.s.do_warmup)
    b.fail("a task_host cannot be simulated with do_warmup (it would run its nested config twice)");
  if (r.s.sync_every_iteration) {
    b.fail(
        "a task_host cannot be simulated with sync_every_iteration (its nested benchmarks have their own "
        "iterations)");
  }
  info.expect_object({"name", "max_iterations", "max_time", "use_processes", "cuda_device", "gpu_device_id",
                      "base_result_directory", "pin_cpus", "do_warmup", "sync_every_iteration",
                      "omit_block_times", "benchmarks", "comment"});
  (void)info.at("name").as_string();
  Defaults d;
  d.parent = index;
  d.max_iterations = info.at("max_iterations").as_int_in(0, INT64_MAX);
  d.max_time = seconds(info.at("max_time"));
  if (auto v = info.find("use_processes")) d.use_processes = v->as_bool();
  d.thread_process = inst.process;
  d.release_base = inst.release_time;
  // CPU pinning, the device and the result folder mean nothing to the simulator (it writes every
  // result file into --out); these two would change how the nested benchmarks run.
  if (auto v = info.find("do_warmup"); v && v->as_bool()) v->fail("is not simulated inside a task_host");
  if (auto v = info.find("sync_every_iteration"); v && v->as_bool())
    v->fail("is not simulated inside a task_host");
  if (auto v = info.find("omit_block_times"); v && v->as_bool() != r.s.omit_block_times)
    v->fail("must equal the top level's omit_block_times (the simulator applies one setting)");
  if (auto v = info.find("pin_cpus")) (void)v->as_bool();
  if (auto v = info.find("cuda_device")) (void)v->as_int_in(0, 1024);
  if (auto v = info.find("gpu_device_id")) (void)v->as_int_in(0, 1024);
  if (auto v = info.find("base_result_directory")) (void)v->as_string();
  read_benchmarks(info.at("benchmarks"), d, r);
}

ScenarioInstance read_instance(const JsonNode& b, std::size_t index, const Defaults& d, Reader& r) {
  const Platform& p = r.p;
  b.expect_object({"filename", "log_name", "label", "thread_count", "block_count", "data_size",
                   "additional_info", "max_iterations", "max_time", "release_time", "cpu_core",
                   "stream_priority", "sm_mask", "mps_thread_percentage", "period", "compute_unit_mask",
                   "gpurt_sim", "gpurt_whole_sm", "comment"});
  // The config's timing models, with this benchmark's own where it gives them (its "gpurt_sim" is
  // checked in full by apply_memory_fraction).
  SimOptions sim = r.s.sim;
  if (auto g = b.find("gpurt_sim"); g && g->is_object()) read_workload_costs(*g, sim);
  ScenarioInstance inst;
  const JsonNode filename = b.at("filename");
  inst.plugin = plugin_name(filename.as_string());
  if (auto g = b.find("gpurt_sim"); g && g->is_object()) {
    // A time model of another plugin changes nothing here: say so rather than ignore it.
    for (const auto& [key, plugins] :
         {std::pair<const char*, std::vector<std::string>>{"matrix_multiply_ns_per_fma", {"matrix_multiply"}},
          {"random_walk_ns_per_access", {"random_walk", "inorder_walk"}},
          {"mandelbrot_ns_per_iteration", {"mandelbrot"}},
          {"cpu_random_walk_ns_per_access", {"cpu_random_walk"}}}) {
      const auto v = g->find(key);
      if (v && std::find(plugins.begin(), plugins.end(), inst.plugin) == plugins.end())
        r.warn(*v, fmt::format("times {} benchmarks only; this one is {}, so it changes nothing",
                               fmt::join(plugins, " and "), inst.plugin));
    }
  }
  const auto& known = plugin_list();
  const bool modelled = std::find(known.begin(), known.end(), inst.plugin) != known.end();
  const bool unmodelled_ok =
      std::find(r.unmodelled.begin(), r.unmodelled.end(), inst.plugin) != r.unmodelled.end();
  if (!modelled && !unmodelled_ok) {
    filename.fail(fmt::format("plugin \"{}\" cannot be simulated (simulated plugins: {})", inst.plugin,
                              fmt::join(known, ", ")));
  }
  inst.log_name =
      b.has("log_name") ? read_log_name(b.at("log_name")) : fmt::format("{}_{}.json", inst.plugin, index);
  inst.label = b.has("label") ? b.at("label").as_label() : "";
  // multikernel, stream_action and task_host size their kernels themselves, cuFFT picks its own
  // grid, and CPU-only plugins have none; matrix_multiply and mandelbrot ignore block_count (the
  // grid follows from the data), as the examiner's plugins do.
  const bool multi = inst.plugin == "multikernel" || inst.plugin == "stream_action" ||
                     inst.plugin == "cufft" || inst.plugin == "task_host" || inst.plugin == "cpu_random_walk";
  const bool no_blocks = multi || inst.plugin == "matrix_multiply" || inst.plugin == "mandelbrot";
  inst.thread_count = read_dims(b.at("thread_count"), multi);
  check_threads(inst.thread_count, p, b.at("thread_count"));
  inst.block_count = read_dims(b.at("block_count"), no_blocks);
  if (auto v = b.find("data_size")) inst.data_size = v->as_int_in(0, INT64_MAX);
  if (auto v = b.find("release_time")) inst.release_time = seconds(*v);
  inst.release_time += d.release_base;  // <= 64 nesting levels of 10^6 s: no overflow
  inst.max_iterations =
      b.has("max_iterations") ? b.at("max_iterations").as_int_in(0, INT64_MAX) : d.max_iterations;
  inst.max_time = b.has("max_time") ? seconds(b.at("max_time")) : d.max_time;
  if (inst.max_iterations == 0 && inst.max_time.count() == 0) {
    b.fail("runs forever: max_iterations and max_time are both 0 (unlimited)");
  }
  if (auto v = b.find("period")) {
    inst.period = seconds(*v);
    if (inst.period.count() <= 0) v->fail("must be > 0");
  }
  if (auto v = b.find("stream_priority")) {
    inst.stream_priority = static_cast<int>(v->as_int_in(-64, 64));
    inst.stream_priority_given = true;
    // CUDA's priorities run from the device's greatest (negative) to 0. The examiner creates a
    // stream with a priority outside that range as a default stream (cudaStreamCreate: priority
    // 0, blocking), and no device takes one above 0: such a benchmark is run so, and told.
    if (inst.stream_priority > 0) {
      r.warn(*v,
             "is above 0, outside every CUDA device's priority range: the examiner then creates a default "
             "stream (priority 0, synchronising with the NULL stream), and so does gpurt");
      inst.stream_priority = 0;
      inst.stream_priority_given = false;
    }
  }
  if (auto v = b.find("cpu_core")) inst.cpu_core = static_cast<int>(v->as_int_in(0, 4096));
  if (auto v = b.find("mps_thread_percentage")) {
    const double pct = v->as_number();
    if (!(pct > 0 && pct <= 100)) v->fail("must be in (0, 100]");
    inst.mps_thread_percentage = pct;
  }
  if (auto v = b.find("sm_mask")) {
    // libsmctrl's masks disable TPCs (a set bit turns a unit off); an AMD CU mask enables CUs.
    // Read on an AMD GPU, one would silently mean the opposite, so it is refused there.
    if (p.vendor == Vendor::amd) v->fail("is a libsmctrl (NVIDIA) mask; AMD GPUs take compute_unit_mask");
    inst.sm_mask = parse_sm_mask(*v, p, r);
  }
  if (auto v = b.find("compute_unit_mask")) {
    if (b.has("sm_mask")) v->fail("cannot be combined with sm_mask");
    inst.sm_mask = parse_compute_unit_mask(*v, p);
  }
  inst.parent = d.parent;
  inst.process = d.use_processes ? r.next_process++ : d.thread_process;

  // Plugins whose examiner versions have a default for a missing additional_info.
  const std::optional<JsonNode> opt_info = b.find("additional_info");
  if (opt_info) inst.additional_info = opt_info->json();
  if (inst.plugin == "random_walk" || inst.plugin == "inorder_walk") {
    detail::read_random_walk(opt_info, b, inst, sim, r.s.warnings);
    check_fits(inst.actions.back().kernel, p, b.at("thread_count"));
    return inst;
  }
  if (inst.plugin == "mandelbrot") {
    if (b.at("thread_count").is_array() && inst.thread_count != b.at("thread_count").items()[0].as_int()) {
      b.at("thread_count").fail("must be one dimension (mandelbrot uses 1-D blocks)");
    }
    detail::read_mandelbrot(opt_info, b, inst, sim, r.s.warnings);
    check_fits(inst.actions.back().kernel, p, b.at("thread_count"));
    return inst;
  }
  if (inst.plugin == "cpu_random_walk") {
    detail::read_cpu_random_walk(opt_info, b, inst, sim, r.s.warnings);
    return inst;
  }
  // The spin plugins' defaults when additional_info is absent, as the examiner's sources set
  // them: timer_spin.cu and timer_spin_default_stream.cu spin 10 ms (DEFAULT_SPIN_DURATION),
  // counter_spin.cu loops 10^6 times (DEFAULT_LOOP_ITERATIONS).
  static const Json kDefaultSpinNs = 10'000'000, kDefaultLoopIterations = 1'000'000;
  const bool spin = inst.plugin == "timer_spin" || inst.plugin == "timer_spin_default_stream" ||
                    inst.plugin == "counter_spin";
  const JsonNode info =
      opt_info || !spin ? b.at("additional_info")
                        : JsonNode(inst.plugin == "counter_spin" ? kDefaultLoopIterations : kDefaultSpinNs,
                                   b.file(), b.path() + ".additional_info");
  if (!modelled) return inst;
  if (inst.plugin == "timer_spin" || inst.plugin == "timer_spin_default_stream" ||
      inst.plugin == "counter_spin") {
    const bool counter = inst.plugin == "counter_spin";
    HostAction a;
    a.kind = HostAction::Kind::kernel;
    a.label = inst.label.empty() ? inst.plugin : inst.label;
    a.kernel = spin_kernel(a.label, inst.block_count, inst.thread_count, info, counter, sim, r, true);
    check_fits(a.kernel, p, b.at("thread_count"));
    inst.null_stream = inst.plugin == "timer_spin_default_stream";
    inst.actions.push_back(std::move(a));
  } else if (inst.plugin == "sharedmem_timer_spin") {  // timer_spin with static shared memory
    info.expect_object({"duration", "shared_memory_size", "comment"});
    HostAction a;
    a.kind = HostAction::Kind::kernel;
    a.label = inst.label.empty() ? inst.plugin : inst.label;
    a.kernel = spin_kernel(a.label, inst.block_count, inst.thread_count, info.at("duration"), false, sim, r);
    a.kernel.shape.shared_memory = shared_ints(info.at("shared_memory_size"), false) * 4;
    check_fits(a.kernel, p, b);
    inst.actions.push_back(std::move(a));
  } else if (inst.plugin == "multikernel") {
    read_multikernel(info, inst, p, sim, r);
  } else if (inst.plugin == "cufft") {
    detail::read_cufft(info, inst, p);
  } else if (inst.plugin == "matrix_multiply") {
    detail::read_matrix_multiply(info, b.at("thread_count"), inst, sim);
    // The examiner's plugin means 32x32 for a 1-D block but then sets y from the config's
    // (1): it runs 32x1 blocks. gpurt runs the square the number names, and says so.
    if (!b.at("thread_count").is_array())
      r.warn(
          b.at("thread_count"),
          fmt::format("runs {0}x{0} blocks; the examiner's matrix_multiply runs a 1-D thread_count as 32x1 "
                      "blocks (give [{0}, {0}] to say which is meant)",
                      inst.block_x));
    for (const HostAction& a : inst.actions) {
      if (a.kind == HostAction::Kind::kernel) check_fits(a.kernel, p, b.at("thread_count"));
    }
  } else if (inst.plugin == "task_host") {
    // read_benchmarks reads the nested config once this instance has its index.
  } else {  // stream_action
    info.expect_object({"use_null_stream", "actions", "comment"});
    if (auto v = info.find("use_null_stream")) inst.null_stream = v->as_bool();
    const JsonNode actions = info.at("actions");
    for (const JsonNode& a : actions.items()) inst.actions.push_back(read_stream_action(a, inst, p, sim, r));
    if (inst.actions.empty()) actions.fail("must list at least one action");
  }
  check_program_times(inst, sim, b);
  if (inst.null_stream) {
    // The NULL stream is the runtime's, not one the plugin creates: neither a mask nor a priority
    // reaches it (on the GPU as in the simulator). Said, not silently dropped.
    if (auto v = b.find("sm_mask"))
      r.warn(*v, "ignored: the instance runs on the NULL stream, which takes no SM mask");
    if (auto v = b.find("stream_priority"); v && inst.stream_priority != 0)
      r.warn(*v, "ignored: the instance runs on the NULL stream, whose priority is 0");
  }
  return inst;
}

// The memory-bound part of a plugin's blocks for the performance model's bandwidth contention
// (docs/simulator.md "Performance model"): random_walk and inorder_walk are modelled as memory
// accesses and nothing else; every other plugin's time model is compute or a fixed duration.
double default_memory_fraction(const std::string& plugin) {
  return plugin == "random_walk" || plugin == "inorder_walk" ? 1.0 : 0.0;
}

// A benchmark's kernels get its "gpurt_sim": {"memory_fraction": F} (0..1), else the plugin's
// default.
void apply_memory_fraction(const JsonNode& b, ScenarioInstance& inst) {
  double fraction = default_memory_fraction(inst.plugin);
  if (auto sim = b.find("gpurt_sim")) {
    sim->expect_object({"memory_fraction", "counter_spin_ns_per_iteration", "matrix_multiply_ns_per_fma",
                        "random_walk_ns_per_access", "mandelbrot_ns_per_iteration",
                        "cpu_random_walk_ns_per_access", "comment"});
    if (auto v = sim->find("memory_fraction")) {
      fraction = v->as_number();
      if (!(fraction >= 0 && fraction <= 1)) v->fail("must be in [0, 1]");
    }
  }
  for (HostAction& a : inst.actions)
    if (a.kind == HostAction::Kind::kernel) a.kernel.memory_fraction = fraction;
}

// A benchmark's "gpurt_whole_sm": true (a gpurt key) makes every block of its spin kernels hold
// all of an SM's shared memory, so an SM runs one of them at a time whatever their threads: on a
// GPU of 2,048-thread SMs two 1,024-thread blocks would otherwise share one (docs/bench.md).
void apply_whole_sm(const JsonNode& b, ScenarioInstance& inst, const Platform& p) {
  const auto v = b.find("gpurt_whole_sm");
  if (!v || !v->as_bool()) return;
  constexpr const char* kSpin[] = {"timer_spin",   "timer_spin_default_stream",
                                   "counter_spin", "sharedmem_timer_spin",
                                   "multikernel",  "stream_action"};
  if (std::find(std::begin(kSpin), std::end(kSpin), inst.plugin) == std::end(kSpin))
    v->fail(
        fmt::format("is for the spin plugins (timer_spin, timer_spin_default_stream, counter_spin, "
                    "sharedmem_timer_spin, multikernel, stream_action), not {}",
                    inst.plugin));
  for (HostAction& a : inst.actions) {
    if (a.kind != HostAction::Kind::kernel) continue;
    a.kernel.whole_sm = true;
    a.kernel.shape.shared_memory = p.shared_memory;
  }
}

void read_benchmarks(const JsonNode& benchmarks, const Defaults& d, Reader& r) {
  Scenario& s = r.s;
  const auto entries = benchmarks.items();
  if (entries.empty()) benchmarks.fail("must list at least one benchmark");
  // The simulator's work per event grows with the instances (each stream and host looked at):
  // 1,000 take about 8 s on a 2-core VM, 10,000 would take about 13 minutes.
  if (entries.size() + s.instances.size() > kMaxInstances) {
    benchmarks.fail(fmt::format("holds {} benchmarks (with those before it); a config may hold at most {}",
                                entries.size() + s.instances.size(), kMaxInstances));
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    ScenarioInstance inst = read_instance(entries[i], i, d, r);
    apply_memory_fraction(entries[i], inst);
    apply_whole_sm(entries[i], inst, r.p);
    const JsonNode where = entries[i].has("log_name") ? entries[i].at("log_name") : entries[i];
    if (!r.logs.insert(inst.log_name).second) {
      where.fail(fmt::format("log file \"{}\" is also written by an earlier benchmark", inst.log_name));
    }
    // One name a folder of another ("sub" and "sub/c.json"): the second write fails after the run.
    for (std::size_t slash = inst.log_name.find('/'); slash != std::string::npos;
         slash = inst.log_name.find('/', slash + 1)) {
      if (r.logs.contains(inst.log_name.substr(0, slash)))
        where.fail(fmt::format("its folder \"{}\" is a log file of an earlier benchmark",
                               inst.log_name.substr(0, slash)));
    }
    if (const auto next = r.logs.lower_bound(inst.log_name + "/");
        next != r.logs.end() && next->starts_with(inst.log_name + "/")) {
      where.fail(fmt::format("is the folder of log file \"{}\" of an earlier benchmark", *next));
    }
    if (s.sync_every_iteration && entries[i].has("max_iterations")) {
      entries[i].at("max_iterations").fail("cannot be set per benchmark when sync_every_iteration is true");
    }
    const bool host = inst.plugin == "task_host";
    s.instances.push_back(std::move(inst));
    if (host) {
      const int index = static_cast<int>(s.instances.size()) - 1;
      const ScenarioInstance copy = s.instances.back();  // read_task_host appends to s.instances
      read_task_host(entries[i], entries[i].at("additional_info"), copy, index, r);
    }
  }
}

}  // namespace

const std::vector<std::string>& simulated_plugins() { return plugin_list(); }

Scenario parse_scenario(const Json& document, const std::string& file, const Platform& platform) {
  return parse_scenario(document, file, platform, {});
}

Scenario parse_scenario(const Json& document, const std::string& file, const Platform& platform,
                        const std::vector<std::string>& unmodelled_plugins, const ConfigLimits& limits) {
  validate(platform);
  const JsonNode root(document, file);
  root.expect_object({"name", "max_iterations", "max_time", "use_processes", "cuda_device", "gpu_device_id",
                      "base_result_directory", "pin_cpus", "do_warmup", "sync_every_iteration",
                      "omit_block_times", "benchmarks", "comment", "gpurt_sim"});
  Scenario s;
  s.name = root.at("name").as_label();
  s.max_iterations = root.at("max_iterations").as_int_in(0, INT64_MAX);
  s.max_time = seconds(root.at("max_time"));
  if (auto v = root.find("use_processes")) s.use_processes = v->as_bool();
  if (auto v = root.find("sync_every_iteration")) s.sync_every_iteration = v->as_bool();
  if (auto v = root.find("do_warmup")) s.do_warmup = v->as_bool();
  if (auto v = root.find("omit_block_times")) s.omit_block_times = v->as_bool();
  if (auto v = root.find("pin_cpus")) s.pin_cpus = v->as_bool();
  s.source = file;
  if (auto v = root.find("cuda_device")) s.device = static_cast<int>(v->as_int_in(0, 1024));
  if (auto v = root.find("gpu_device_id")) {
    const int d = static_cast<int>(v->as_int_in(0, 1024));
    if (root.has("cuda_device") && d != s.device) {
      v->fail(fmt::format("names device {} but cuda_device names {}", d, s.device));
    }
    s.device = d;
  }
  if (auto v = root.find("base_result_directory")) {
    s.base_result_directory = v->as_string();
    if (s.base_result_directory.empty()) v->fail("must name a folder");
  }
  s.sim.max_blocks = limits.max_blocks;
  s.sim.max_kernels = limits.max_kernels;
  if (auto v = root.find("gpurt_sim")) {
    s.sim = read_sim_options(*v);
    const auto limit = [&v](const char* key, std::int64_t& value, std::int64_t allowed, const char* option) {
      if (!v->has(key)) {
        value = allowed;
      } else if (value > allowed) {
        v->at(key).fail(fmt::format(
            "is above the {} this run allows ({} raises that; a config may only lower it)", allowed, option));
      }
    };
    limit("max_blocks", s.sim.max_blocks, limits.max_blocks, "--max-blocks");
    limit("max_kernels", s.sim.max_kernels, limits.max_kernels, "--max-kernels");
  }
  Reader r{s, platform, unmodelled_plugins, {}, 1};
  Defaults d;
  d.max_iterations = s.max_iterations;
  d.max_time = s.max_time;
  d.use_processes = s.use_processes;
  read_benchmarks(root.at("benchmarks"), d, r);
  return s;
}

Scenario load_scenario(const std::string& path, const Platform& platform, const ConfigLimits& limits) {
  Scenario s = parse_scenario(load_json_file(path), path, platform, {}, limits);
  for (const std::string& w : s.warnings) std::fprintf(stderr, "gpurt: warning: %s\n", printable(w).c_str());
  return s;
}

}  // namespace gpurt
