#include "gpurt/analysis/fifo.hpp"

#include <algorithm>

namespace gpurt {

FifoResult analyse_fifo(const FifoSystem& s) {
  FifoResult r;
  r.gpu_threads = s.gpu_threads;
  for (const FifoTask& t : s.tasks) {
    r.total_utilization += static_cast<double>(t.wcet.count()) / static_cast<double>(t.period.count());
    r.max_block = std::max(r.max_block, t.block);
  }
  r.limit = static_cast<double>(s.gpu_threads - r.max_block + 1);
  // Theorem 1 needs b_max > 1: with b_max = 1 blocks never wait for room (malleable model).
  r.at_or_above_limit = r.max_block > 1 && r.total_utilization >= r.limit;
  r.overloaded = r.total_utilization > static_cast<double>(s.gpu_threads);
  return r;
}

}  // namespace gpurt
