#include "gpurt/model/perf_params.hpp"

#include <fmt/format.h>

namespace gpurt {

PerfParams parse_perf_params(const JsonNode& node, const PerfParams& base) {
  node.expect_object({"switch_cost", "coresidence_cost", "spread_cost", "memory_bandwidth", "memory_sharing",
                      "jitter", "kernel_jitter", "host_cores", "host_slice_us", "block_dispatch_ns",
                      "wave_release", "cu_lock_threshold", "lone_kernel_blocks", "comment"});
  PerfParams p = base;
  // Each is a fraction of a block's time (or a bandwidth); 100 bounds any product of them far
  // from overflow of a block time (blocks are at most ~10^12 ns: see scenario limits).
  const auto read = [&](std::string_view key, double& out) {
    if (auto v = node.find(key)) {
      out = v->as_number();
      if (!(out >= 0 && out <= 100)) v->fail("must be in 0..100");
    }
  };
  read("switch_cost", p.switch_cost);
  read("coresidence_cost", p.coresidence_cost);
  read("spread_cost", p.spread_cost);
  read("jitter", p.jitter);
  read("kernel_jitter", p.kernel_jitter);
  if (auto v = node.find("memory_bandwidth")) {
    p.memory_bandwidth = v->as_number();
    if (!(p.memory_bandwidth == 0 ||
          (p.memory_bandwidth >= kMinMemoryBandwidth && p.memory_bandwidth <= 1e6)))
      v->fail("must be 0 (unlimited) or in 0.01..1000000 (memory-bound blocks served at full speed)");
  }
  if (auto v = node.find("memory_sharing")) {
    const std::string sharing = v->as_string();
    if (sharing == "fluid") {
      p.memory_sharing = MemorySharing::fluid;
    } else if (sharing == "at_start") {
      p.memory_sharing = MemorySharing::at_start;
    } else {
      v->fail("must be \"fluid\" or \"at_start\"");
    }
  }
  if (auto v = node.find("host_cores")) {
    p.host_cores = v->as_number();
    if (!(p.host_cores >= 0 && p.host_cores <= 4096 && p.host_cores == static_cast<int>(p.host_cores)))
      v->fail("must be a whole number in 0..4096 (0: as many cores as threads)");
  }
  if (auto v = node.find("host_slice_us")) {
    p.host_slice_us = v->as_number();
    if (!(p.host_slice_us >= 0 && p.host_slice_us <= 1e6)) v->fail("must be in 0..1000000 (microseconds)");
  }
  if (auto v = node.find("block_dispatch_ns")) {
    p.block_dispatch_ns = v->as_number();
    if (!(p.block_dispatch_ns >= 0 && p.block_dispatch_ns <= 1e9)) v->fail("must be in 0..1000000000 (ns)");
  }
  if (auto v = node.find("wave_release")) {
    p.wave_release = v->as_number();
    if (!(p.wave_release >= 0 && p.wave_release < 1))
      v->fail("must be in [0, 1) (a fraction of a block's time)");
  }
  if (auto v = node.find("cu_lock_threshold")) {
    p.cu_lock_threshold = v->as_number();
    if (!(p.cu_lock_threshold >= 0 && p.cu_lock_threshold <= 1e6 &&
          p.cu_lock_threshold == static_cast<double>(static_cast<std::int64_t>(p.cu_lock_threshold))))
      v->fail("must be a whole number in 0..1000000 (failed placement attempts; 0: off)");
  }
  if (auto v = node.find("lone_kernel_blocks")) {
    p.lone_kernel_blocks = v->as_number();
    if (!(p.lone_kernel_blocks >= 0 && p.lone_kernel_blocks <= 1e9 &&
          p.lone_kernel_blocks == static_cast<double>(static_cast<std::int64_t>(p.lone_kernel_blocks))))
      v->fail("must be a whole number in 0..1000000000 (resident blocks of a kernel alone; 0: off)");
  }
  return p;
}

std::string_view to_string(MemorySharing sharing) noexcept {
  return sharing == MemorySharing::fluid ? "fluid" : "at_start";
}

Json to_json(const PerfParams& p) {
  return Json{{"switch_cost", p.switch_cost},
              {"coresidence_cost", p.coresidence_cost},
              {"spread_cost", p.spread_cost},
              {"memory_bandwidth", p.memory_bandwidth},
              {"memory_sharing", std::string(to_string(p.memory_sharing))},
              {"jitter", p.jitter},
              {"kernel_jitter", p.kernel_jitter},
              {"host_cores", p.host_cores},
              {"host_slice_us", p.host_slice_us},
              {"block_dispatch_ns", p.block_dispatch_ns},
              {"wave_release", p.wave_release},
              {"cu_lock_threshold", p.cu_lock_threshold},
              {"lone_kernel_blocks", p.lone_kernel_blocks}};
}

}  // namespace gpurt
