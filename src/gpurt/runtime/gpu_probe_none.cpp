// gpu_probe.hpp without CUDA: every probe reports that gpurt was built without it.
#include "gpurt/runtime/gpu_probe.hpp"

namespace gpurt {

namespace {
[[noreturn]] void no_cuda() {
  throw PartitionError("gpurt was built without CUDA (nvcc not found or -DGPURT_CUDA=OFF)");
}
}  // namespace

SmidProbe::SmidProbe(int blocks) : _blocks(blocks) { no_cuda(); }
SmidProbe::~SmidProbe() = default;
void SmidProbe::launch(void*, int, std::int64_t) { no_cuda(); }
std::vector<BlockRecord> SmidProbe::collect() { no_cuda(); }
PinnedRun run_pinned_probe(const SmMask&, int, int, int, int, std::int64_t, void*) { no_cuda(); }
double run_unpinned_reference(int, int, int, int, std::int64_t, void*) { no_cuda(); }
int device_sm_count(int) { no_cuda(); }
StreamPriorityRange stream_priority_range(int) { no_cuda(); }
int stream_priority(void*) { no_cuda(); }

}  // namespace gpurt
