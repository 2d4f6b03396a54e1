// The data-computing plugins (the examiner's matrix_multiply, random_walk, inorder_walk,
// mandelbrot and cpu_random_walk, gpurt's cufft) as
// host programs for the simulator, with their timing models (docs/bench.md "Timing models").
// Split from scenario.cpp, which checks that the kernels fit the platform.
#include "gpurt/model/scenario_workloads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "gpurt/model/cufft_model.hpp"

namespace gpurt::detail {

Nanos model_time(double ns, const JsonNode& where, std::string_view what) {
  const double max = static_cast<double>(kMaxScenarioTime.count());
  if (!(ns <= max)) {  // also NaN
    where.fail(fmt::format("makes {} of {:.6g} s: at most {:.0e} s (gpurt's bound on every time)", what,
                           ns / 1e9, max / 1e9));
  }
  return Nanos{static_cast<std::int64_t>(std::ceil(ns))};
}

std::int64_t info_integer(const JsonNode& node, std::int64_t lo, std::int64_t hi,
                          std::vector<std::string>& warnings) {
  if (!node.is_string()) return node.as_int_in(lo, hi);
  const std::string text = node.as_string();
  const bool digits = !text.empty() && text.size() <= 18 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits)
    node.fail("must be a number (or, as older examiner configs wrote it, a string of decimal digits)");
  const std::int64_t value = std::stoll(text);
  if (value < lo || value > hi) node.fail(fmt::format("must be in {}..{}", lo, hi));
  warnings.push_back(
      fmt::format("{}: {} = {}: a number written as a string; read as {}, as older examiner "
                  "versions did",
                  node.file(), node.path(), node.brief(), value));
  return value;
}

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
  k.kernel.block_time = model_time(fmas * sim.matrix_multiply_ns_per_fma, info, "a block time");
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

// random_walk (Dissertation §3.5, "Random Memory Walk"), and inorder_walk (the same kernel over
// a buffer in index order): every thread follows a cycle through a data_size-byte buffer.
// additional_info: reads per thread, as a number or {"iterations": N}; without it, the examiner's
// default of kDefaultWalkReads. Dependent reads are latency-bound: block time = reads · ns per
// access (the same model for both walks: an in-order walk's reads are as dependent).
void read_random_walk(const std::optional<JsonNode>& info, const JsonNode& b, ScenarioInstance& inst,
                      const SimOptions& sim, std::vector<std::string>& warnings) {
  if (info) {
    const JsonNode reads = info->is_object() ? info->at("iterations") : *info;
    if (info->is_object()) info->expect_object({"iterations", "comment"});
    inst.walk_reads = info_integer(reads, 1, std::int64_t{1} << 40, warnings);
  } else {
    inst.walk_reads = kDefaultWalkReads;
  }
  if (inst.data_size < 8) {
    (b.has("data_size") ? b.at("data_size") : b)
        .fail(fmt::format("{} needs data_size >= 8 (bytes of the buffer to walk)", inst.plugin));
  }
  if (inst.data_size > (std::int64_t{1} << 34)) {  // the walk's links are 32-bit indices
    b.at("data_size")
        .fail(fmt::format("{} walks at most 2^34 bytes (16 GiB: 2^32 four-byte links)", inst.plugin));
  }
  HostAction k;
  k.kind = HostAction::Kind::kernel;
  k.label = inst.label.empty() ? inst.plugin : inst.label;
  k.kernel.name = k.label;
  k.kernel.blocks = inst.block_count;
  k.kernel.shape.threads = inst.thread_count;
  k.kernel.block_time = model_time(static_cast<double>(inst.walk_reads) * sim.random_walk_ns_per_access,
                                   info ? *info : b, "a block time");
  inst.actions.push_back(std::move(k));
}

void read_mandelbrot(const std::optional<JsonNode>& info, const JsonNode& b, ScenarioInstance& inst,
                     const SimOptions& sim, std::vector<std::string>& warnings) {
  const std::int64_t iterations =
      info ? info_integer(*info, 0, std::int64_t{1} << 40, warnings) : kDefaultMandelbrotIterations;
  const JsonNode size = b.has("data_size") ? b.at("data_size") : b;
  // Blocks are ints: at most 2^31-1 of at most 1024 threads, so fewer than 2^41 points.
  if (inst.data_size > (std::int64_t{1} << 41))
    size.fail("makes more than 2^31-1 blocks: at most 2^41 points");
  const auto width = static_cast<std::int64_t>(std::sqrt(static_cast<double>(inst.data_size)));
  if (width < 1) size.fail("mandelbrot needs data_size >= 1 (the number of points of its square image)");
  const std::int64_t points = width * width;
  const std::int64_t blocks = (points + inst.thread_count - 1) / inst.thread_count;
  if (blocks > INT32_MAX) {
    size.fail(fmt::format("makes {} blocks of {} threads: at most 2^31-1", blocks, inst.thread_count));
  }
  inst.block_count = static_cast<int>(blocks);
  HostAction k;
  k.kind = HostAction::Kind::kernel;
  k.label = inst.label.empty() ? "mandelbrot" : inst.label;
  k.kernel.name = k.label;
  k.kernel.blocks = inst.block_count;
  k.kernel.shape.threads = inst.thread_count;
  // A kernel of zero iterations still starts and ends its blocks: at least 1 ns.
  k.kernel.block_time =
      std::max(Nanos{1}, model_time(static_cast<double>(iterations) * sim.mandelbrot_ns_per_iteration,
                                    info ? *info : b, "a block time"));
  inst.actions.push_back(std::move(k));
}

// cpu_random_walk: one CPU thread walks a shuffled data_size-byte buffer. The simulator has no
// CPU model: an iteration is host-only work of its modelled length — a host sleep of that long
// before a synchronize of the instance's (always idle) stream, which returns at once.
void read_cpu_random_walk(const std::optional<JsonNode>& info, const JsonNode& b, ScenarioInstance& inst,
                          const SimOptions& sim, std::vector<std::string>& warnings) {
  const std::int64_t reads =
      info ? info_integer(*info, 1, std::int64_t{1} << 40, warnings) : kDefaultCpuWalkReads;
  if (inst.data_size < 8) {
    (b.has("data_size") ? b.at("data_size") : b)
        .fail("cpu_random_walk needs data_size >= 8 (bytes of the buffer to walk)");
  }
  inst.walk_reads = reads;
  HostAction work;
  work.kind = HostAction::Kind::sync_stream;
  work.label = "cpu work";
  work.delay = model_time(static_cast<double>(reads) * sim.cpu_random_walk_ns_per_access, info ? *info : b,
                          "a host work time");
  inst.actions.push_back(std::move(work));
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
