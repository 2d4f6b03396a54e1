// Internal to the PBS analyses (not installed API): one function per policy.
#pragma once

#include "gpurt/analysis/pbs.hpp"
#include "gpurt/analysis/pbs_model.hpp"

namespace gpurt::pbs_detail {

PbsResult gpusched_fast(const PbsSystem& system, const PbsJobs& jobs, const PbsOptions& options);
/// PbsMerge::none: Algorithm 1 depth first with no merge at all (every eligible order its own
/// vertex); pbs_reference.cpp.
PbsResult gpusched_tree(const PbsSystem& system, const PbsJobs& jobs, const PbsOptions& options);
PbsResult gpusched_reference(const PbsSystem& system, const PbsJobs& jobs, const PbsOptions& options);
PbsResult edf_baseline(const PbsSystem& system, bool parallel);

/// Builds a frame of `order` (task indices) starting at `start`, with `done` the jobs each task
/// had completed before it.
PbsFrame make_frame(std::int64_t start, std::int64_t end, std::span<const int> order,
                    std::span<const std::int32_t> done);

}  // namespace gpurt::pbs_detail
