// One trace data model for simulated and measured runs: per instance, its iterations and the
// kernels it launched with every block's start, end and SM. Writers and readers convert it to
// examiner-compatible JSON, Perfetto/Chrome trace JSON and SVG timelines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpurt/core/time.hpp"

namespace gpurt {

struct BlockRecord {
  Nanos start{0}, end{0};
  int sm = -1;
};

struct KernelRecord {
  std::string name;
  int block_count = 0;
  int thread_count = 0;
  std::int64_t shared_memory = 0;
  /// CPU times: before the launch call, after it returned, after the synchronize that covered
  /// this kernel returned (nullopt if none did) — the examiner's cuda_launch_times.
  Nanos launch_before{0}, launch_after{0};
  std::optional<Nanos> sync_after;
  std::vector<BlockRecord> blocks;  ///< empty when block times are omitted
};

struct IterationRecord {
  Nanos copy_in_start{0}, copy_in_end{0};
  Nanos execute_start{0}, execute_end{0};
  Nanos copy_out_start{0}, copy_out_end{0};
  bool has_execute = true;  ///< false: the file gave no execute_times (no response time)
  std::vector<KernelRecord> kernels;
};

/// One benchmark instance of a scenario (an examiner result file).
struct InstanceTrace {
  std::string benchmark_name;  ///< plugin
  std::string label;
  std::string log_name;
  Nanos release_time{0};
  int thread_count = 0, block_count = 0;
  std::int64_t data_size = 0;
  int stream = 0;  ///< stream index, for colouring
  std::vector<IterationRecord> iterations;
};

struct Trace {
  std::string scenario_name;
  std::string platform;        ///< platform id, when known
  int sms = 0;                 ///< SM lanes to draw
  int recorded_sms = 0;        ///< the SM count the result files state (gpurt.sms); 0: not stated
  int max_threads_per_sm = 0;  ///< lane height reference
  bool simulated = false;      ///< predicted by gpurt's simulator (labelled as such in pictures)
  std::vector<InstanceTrace> instances;
};

}  // namespace gpurt
