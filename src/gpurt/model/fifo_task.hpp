// FIFO-model GPU tasks (FIFO model seed §IV): sporadic kernels τ_i = (C_i, T_i, g_i, b_i) on a
// GPU of m threads that runs blocks in FIFO order of kernel release (rules R1-R2, property P1).
// File kind "gpurt/fifo@1".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpurt/core/json.hpp"
#include "gpurt/core/time.hpp"

namespace gpurt {

struct FifoTask {
  std::string name;
  /// C_i: total execution workload of one job in thread·time (all g_i·b_i threads together),
  /// so u_i = C_i / T_i may exceed 1 (seed Example 2: u_1 = 486.4).
  Nanos wcet{0};
  Nanos period{0};  ///< T_i, minimum separation of jobs (implicit deadline d = r + T_i)
  int grid = 1;     ///< g_i, blocks per job
  int block = 1;    ///< b_i, threads per block (<= b_lim)
};

struct FifoSystem {
  TimeUnit time_unit = TimeUnit::ms;
  std::int64_t gpu_threads = 0;  ///< m (the seed's TX1 example: 4096)
  int max_block = 1024;          ///< b_lim, the largest block the GPU accepts
  std::vector<FifoTask> tasks;
};

/// Parses and validates a "gpurt/fifo@1" document:
/// {"format", "time_unit"?, "gpu_threads" | "platform", "max_block"?, "tasks": [{"name", "wcet",
/// "period", "grid", "block"}]}; with "platform", m = sms · max_threads and b_lim is the
/// platform's max_threads_per_block. Throws InputError.
FifoSystem parse_fifo_system(const Json& document, const std::string& file);
FifoSystem load_fifo_system(const std::string& path);
/// The file form (times in its time_unit, explicit gpu_threads and max_block); parse reads it back.
Json to_json(const FifoSystem& system);

}  // namespace gpurt
