// The data-computing plugins (the examiner's matrix_multiply and random_walk, gpurt's cufft) as
// host programs for the simulator, with their timing models (docs/bench.md "Timing models").
// Split from scenario.cpp, which checks that the kernels fit the platform.
#include "gpurt/model/scenario_workloads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "gpurt/model/cufft_model.hpp"

namespace gpurt::detail {

// matrix_multiply (Dissertation §4.2.1: one thread per element of the W×W result, square
// 2-D blocks): additional_info {"matrix_width": W, "skip_copy": bool}. The grid is
// ceil(W/bx)·ceil(W/by) blocks; without skip_copy an iteration copies A and B in and C out.
void read_matrix_multiply(const JsonNode& info, const JsonNode& threads, ScenarioInstance& inst,
                          const SimOptions& sim) {
  info.expect_object({"matrix_width", "skip_copy", "comment"});
  inst.matrix_width = static_cast<int>(info.at("matrix_width").as_int_in(1, 1 << 16));
  if (auto v = info.find("skip_copy")) inst.skip_copy = v->as_bool();
  if (threads.is_array()) {
    const auto dims = threads.items();
    if (dims.size() < 2 || (dims.size() == 3 && dims[2].as_int() != 1)) {
      threads.fail("must be two block dimensions [x, y] (matrix_multiply uses 2-D blocks)");
    }
    inst.block_x = static_cast<int>(dims[0].as_int_in(1, 1024));
    inst.block_y = static_cast<int>(dims[1].as_int_in(1, 1024));
  } else {
    const int n = inst.thread_count;
    const int edge = static_cast<int>(std::lround(std::sqrt(static_cast<double>(n))));
    if (edge * edge != n) threads.fail("must be a square number (e.g. 256 = 16x16 blocks) or [x, y]");
    inst.block_x = inst.block_y = edge;
  }
  const std::int64_t w = inst.matrix_width;
  const std::int64_t grid_x = (w + inst.block_x - 1) / inst.block_x,
                     grid_y = (w + inst.block_y - 1) / inst.block_y;
  if (grid_y > 65535 || grid_x * grid_y > INT32_MAX) {  // CUDA's grid limit in y; block counts are int
    threads.fail(
        fmt::format("makes a grid of {} x {} blocks for matrix_width {}: at most 65535 in y and 2^31-1 "
                    "in all",
                    grid_x, grid_y, w));
  }
  inst.block_count = static_cast<int>(grid_x * grid_y);
  const std::int64_t bytes = w * w * 4;  // 32-bit floats
  if (!inst.skip_copy) {
    HostAction in;
    in.kind = HostAction::Kind::copy;
    in.label = "copy A, B in";
    in.bytes = 2 * bytes;
    inst.actions.push_back(in);
  }
  HostAction k;
  k.kind = HostAction::Kind::kernel;
  k.label = inst.label.empty() ? "matrix_multiply" : inst.label;
  k.kernel.name = k.label;
  k.kernel.blocks = inst.block_count;
  k.kernel.shape.threads = inst.thread_count;
  const double fmas = static_cast<double>(inst.thread_count) * static_cast<double>(w);
  k.kernel.block_time = Nanos{static_cast<std::int64_t>(std::ceil(fmas * sim.matrix_multiply_ns_per_fma))};
  inst.actions.push_back(std::move(k));
  if (!inst.skip_copy) {
    HostAction out;
    out.kind = HostAction::Kind::copy;
    out.label = "copy C out";
    out.bytes = bytes;
    out.direction = CopyDirection::device_to_host;
    inst.actions.push_back(out);
  }
}

// random_walk (Dissertation §3.5, "Random Memory Walk"): every thread follows a shuffled cycle
// through a data_size-byte buffer. additional_info: reads per thread, as a number or
// {"iterations": N}; without it, the examiner's default of kDefaultWalkReads. Dependent reads
// are latency-bound: block time = reads · ns per access.
void read_random_walk(const std::optional<JsonNode>& info, const JsonNode& b, ScenarioInstance& inst,
                      const SimOptions& sim) {
  if (info) {
    const JsonNode reads = info->is_object() ? info->at("iterations") : *info;
    if (info->is_object()) info->expect_object({"iterations", "comment"});
    inst.walk_reads = reads.as_int_in(1, std::int64_t{1} << 40);
  } else {
    inst.walk_reads = kDefaultWalkReads;
  }
  if (inst.data_size < 8) {
    (b.has("data_size") ? b.at("data_size") : b)
        .fail("random_walk needs data_size >= 8 (bytes of the buffer to walk)");
  }
  HostAction k;
  k.kind = HostAction::Kind::kernel;
  k.label = inst.label.empty() ? "random_walk" : inst.label;
  k.kernel.name = k.label;
  k.kernel.blocks = inst.block_count;
  k.kernel.shape.threads = inst.thread_count;
  k.kernel.block_time = Nanos{static_cast<std::int64_t>(
      std::ceil(static_cast<double>(inst.walk_reads) * sim.random_walk_ns_per_access))};
  inst.actions.push_back(std::move(k));
}

// cufft: one execution per iteration, as the kernels of the cuFFT timing model (a model, not
// measured: model/cufft_model.hpp). additional_info: {"size": 2^p points, "batch": count}.
void read_cufft(const JsonNode& info, ScenarioInstance& inst, const Platform& p) {
  info.expect_object({"size", "batch", "comment"});
  const JsonNode size = info.at("size");
  const std::int64_t z = size.as_int_in(2, std::int64_t{1} << 28);
  if ((z & (z - 1)) != 0) size.fail("must be a power of two (the cuFFT model covers 2^1..2^28)");
  CufftShape shape;
  while ((std::int64_t{1} << shape.log2_size) < z) ++shape.log2_size;
  if (auto v = info.find("batch")) shape.batch = static_cast<int>(v->as_int_in(1, 1 << 20));
  // In waves of the SMs the instance may use (model/cufft_model.hpp in_waves).
  const int sms = inst.sm_mask.empty()
                      ? p.sms
                      : static_cast<int>(std::count(inst.sm_mask.begin(), inst.sm_mask.end(), true));
  for (KernelSpec& k : in_waves(cufft_kernels(shape, p), sms)) {
    HostAction a;
    a.kind = HostAction::Kind::kernel;
    a.label = inst.label.empty() ? k.name : inst.label + "/" + k.name;
    k.name = a.label;
    a.kernel = std::move(k);
    inst.actions.push_back(std::move(a));
  }
}

}  // namespace gpurt::detail
