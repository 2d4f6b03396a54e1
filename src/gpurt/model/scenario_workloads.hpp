// Readers of model/scenario.cpp for matrix_multiply, random_walk, inorder_walk, mandelbrot,
// cpu_random_walk and cufft (internal to the parser).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpurt/core/json.hpp"
#include "gpurt/model/scenario.hpp"

namespace gpurt::detail {

/// A time computed by a timing model, `ns` nanoseconds rounded up: fails at `where` (naming
/// `what`) unless it is at most kMaxScenarioTime.
Nanos model_time(double ns, const JsonNode& where, std::string_view what);

/// An integer in [lo, hi] from a plugin's additional_info: a JSON number, or (as the examiner's
/// plugins read it before additional_info became JSON) a string of decimal digits, which adds a
/// warning to `warnings`.
std::int64_t info_integer(const JsonNode& node, std::int64_t lo, std::int64_t hi,
                          std::vector<std::string>& warnings);

/// Fills inst.matrix_width, block_x/y, skip_copy, block_count and the program (copies and
/// the kernel). `threads` is the benchmark's thread_count node. Throws InputError.
void read_matrix_multiply(const JsonNode& info, const JsonNode& threads, ScenarioInstance& inst,
                          const SimOptions& sim);

/// random_walk's and inorder_walk's reads per thread when a config gives no additional_info (the
/// default of the cuda_scheduling_examiner's plugins).
inline constexpr std::int64_t kDefaultWalkReads = 1000;
/// cpu_random_walk's reads per iteration (the examiner's plugin reads no additional_info).
inline constexpr std::int64_t kDefaultCpuWalkReads = 1'000'000;
/// mandelbrot's iterations per point when a config gives no additional_info (the examiner's).
inline constexpr std::int64_t kDefaultMandelbrotIterations = 1000;

/// random_walk and inorder_walk: fills inst.walk_reads and the program (one kernel) from `info`
/// (the benchmark's additional_info; nullopt: kDefaultWalkReads). `b` is the benchmark entry.
/// Throws InputError.
void read_random_walk(const std::optional<JsonNode>& info, const JsonNode& b, ScenarioInstance& inst,
                      const SimOptions& sim, std::vector<std::string>& warnings);

/// mandelbrot: a square image of floor(sqrt(data_size))² points, one thread per point, the
/// examiner's block count ceil(points / thread_count) (its block_count is ignored); `info`: the
/// iterations per point (nullopt: kDefaultMandelbrotIterations). Throws InputError.
void read_mandelbrot(const std::optional<JsonNode>& info, const JsonNode& b, ScenarioInstance& inst,
                     const SimOptions& sim, std::vector<std::string>& warnings);

/// cpu_random_walk: host-only work (no kernel) of kDefaultCpuWalkReads reads (or `info`, a gpurt
/// extension) at SimOptions::cpu_random_walk_ns_per_access. Throws InputError.
void read_cpu_random_walk(const std::optional<JsonNode>& info, const JsonNode& b, ScenarioInstance& inst,
                          const SimOptions& sim, std::vector<std::string>& warnings);

/// cufft: the kernels of one execution (the cuFFT timing model, model/cufft_model.hpp) from
/// additional_info {"size", "batch"}, in waves of the SMs inst.sm_mask leaves. Throws InputError.
void read_cufft(const JsonNode& info, ScenarioInstance& inst, const Platform& p);

}  // namespace gpurt::detail
