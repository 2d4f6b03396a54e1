// The RTGPU seed's task-set generator (§6.1, Table 1): n tasks of m CPU segments, with copy and
// GPU segments between them, lengths uniform in Table 1's ranges, utilisations by UUniFast,
// D_i = T_i = (Σ CL + Σ ML + Σ GW) / U_i, deadline-monotonic priorities. Deterministic per seed.
#pragma once

#include <string>

#include "gpurt/core/rng.hpp"
#include "gpurt/model/rtgpu_task.hpp"

namespace gpurt {

/// A closed range in milliseconds.
struct MsRange {
  double lo = 1, hi = 20;
};

struct RtgpuTable1Options {
  int tasks = 5;             ///< N (Table 1: 5)
  int subtasks = 5;          ///< M = m_i CPU segments per task (Table 1: 5)
  double utilization = 1.0;  ///< U, the taskset's total utilisation (split by UUniFast)
  /// The command-line option that set `utilization`, named by the error a set it cannot reach
  /// throws (gpurt sweep rtgpu sets it from --u-min/--u-max/--u-step).
  std::string utilization_option = "--utilization";
  int physical_sms = 10;   ///< GN (Table 1: 10 physical SMs, 20 virtual)
  bool two_copies = true;  ///< false: §6.1's one-copy model (the second copy has length 0)
  MsRange cpu{1, 20};      ///< CPU segment length (Table 1)
  MsRange copy{1, 5};      ///< memory-copy segment length (Table 1; 1/4 of GPU's upper end)
  MsRange gpu{1, 20};      ///< GPU segment length on one SM: the work GW
  /// Multiplies the copy and GPU ranges: Fig. 8's CPU : (memory + GPU) range ratios 2:1, 1:2
  /// and 1:8 are 0.5, 2 and 8 (Table 1 itself, 1:1, is 1).
  double suspension_scale = 1.0;
  double launch_overhead = 0.12;  ///< GL = this fraction of GW (Table 1: 12 %)
  /// Lower bounds = this fraction of the drawn lengths (the seed draws one length per
  /// segment, so 1: best case = worst case).
  double lower_fraction = 1.0;
};

/// One task set. α of each kernel is one of the seed's measured worst interleaving ratios
/// (§4.3, Fig. 6: 1.45 special-function, 1.7 branch, 1.7 memory, 1.8 compute), chosen
/// uniformly. Throws gpurt::Error on options out of range.
RtgpuSystem generate_rtgpu_table1(Rng& rng, const RtgpuTable1Options& options);

}  // namespace gpurt
