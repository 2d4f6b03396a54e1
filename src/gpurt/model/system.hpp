// gpurt/system@1: one description of a GPU task system from which every seed's model is derived
// (DESIGN.md "One task vocabulary"; docs/report.md "System format"). A task is periodic (or
// sporadic with a minimum separation) and its job is a sequence of segments: CPU work, host/device
// copies and kernels. The derivations to_smlp/to_rtgpu/to_pbs/to_fifo are pure functions that
// return the seed's model or the reason it does not apply; from_* read each model back into a
// system, losslessly (to_X(from_X(m)) == m, compared through the file form).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpurt/core/json.hpp"
#include "gpurt/core/time.hpp"
#include "gpurt/model/fifo_task.hpp"
#include "gpurt/model/pbs_task.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/model/rtgpu_task.hpp"
#include "gpurt/model/smlp_task.hpp"

namespace gpurt {

/// One kernel launch of a job. Every timing field is optional: each model uses its own and
/// derives what it lacks from the others where docs/report.md states a derivation.
struct SystemKernel {
  int blocks = 0;                  ///< grid size B (0: not given; PBS and FIFO need it)
  int threads = 0;                 ///< threads per block (0: not given; PBS and FIFO need it)
  int registers = 0;               ///< 32-bit registers per thread (0: not modelled)
  std::int64_t shared_memory = 0;  ///< bytes of shared memory per block
  /// C: the kernel alone on the whole GPU, all blocks as parallel as the GPU allows (PBS C(τ)).
  std::optional<Nanos> wcet;
  /// L(i,k), k = 1..len: WCET on exactly k allocation units (FFT/SMLP seed §II-C); empty: none.
  std::vector<Nanos> wcet_by_units;
  std::optional<double> rho;                      ///< SMLP ρ_i (eq. 4); absent: System::rho
  std::optional<std::vector<int>> allowed_units;  ///< SMLP explicit S_i (ascending, contains 1)
  /// RTGPU GW in [lo, hi] as time on ONE virtual SM (RTGPU §4.2), with GL^ and α (§4.3).
  std::optional<TimeBounds> work;
  Nanos overhead{0};   ///< RTGPU GL^ (<= work.hi)
  double alpha = 1.0;  ///< RTGPU α >= 1
  /// FIFO C_i: total workload in thread·time (FIFO model seed §IV); absent: blocks·threads·C.
  std::optional<Nanos> workload;
  double slowdown = 1.0;  ///< PBS: C is multiplied by it in a batch of two or more jobs (>= 1)
};

enum class SegmentKind { cpu, h2d, d2h, kernel };
/// "cpu", "h2d", "d2h", "kernel" (the segment's key in the file).
std::string_view to_string(SegmentKind kind);

/// One segment of a job, run in order.
struct SystemSegment {
  SegmentKind kind = SegmentKind::cpu;
  TimeBounds time;      ///< cpu, h2d, d2h: duration in [lo, hi] (unused for kernels)
  SystemKernel kernel;  ///< kind == kernel only
};

struct SystemTask {
  std::string name;
  std::optional<Nanos> period;  ///< T: minimum separation of releases (RTGPU, PBS, FIFO need it)
  /// D, relative; absent: T, where the task has one, for every model (an smlp@1 task with a period but no
  /// deadline, which that format leaves unchecked, converts back with D = T: docs/report.md).
  std::optional<Nanos> deadline;
  std::optional<int> priority;          ///< fixed priority, 1 highest, unique; all tasks or none
  std::vector<SystemSegment> segments;  ///< at least one
  /// "copy_wait": the most the task's copies wait for copies this file does not hold (what an
  /// smlp@1 task's copy_wait carries); copy_waits() adds it to the wait the file's copies give.
  Nanos copy_wait{0};

  /// The number of kernel segments.
  int kernels() const;
};

/// A "gpurt/system@1" file.
struct System {
  Platform platform;
  TimeUnit time_unit = TimeUnit::us;  ///< the unit the file used; derived models keep it
  double rho = 1.1;                   ///< SMLP default ρ (eq. 4)
  int virtual_sms_per_sm = 2;         ///< RTGPU virtual SMs per physical SM (§4.3)
  /// FIFO overrides: m and b_lim (absent: sms·max_threads and max_threads_per_block).
  std::optional<std::int64_t> gpu_threads;
  std::optional<int> max_block;
  std::vector<SystemTask> tasks;
  /// PBS explicit batch completion times (PBS seed Figure 1); indices into tasks.
  std::vector<PbsBatchTime> batches;
};

/// Parses and validates a "gpurt/system@1" document; `file` names it in errors.
/// Throws InputError "FILE: PATH = VALUE: PROBLEM"; unknown keys are errors.
System parse_system(const Json& document, const std::string& file);
/// Loads and validates a "gpurt/system@1" file.
System load_system(const std::string& path);
/// The file form (times in the system's unit); parse_system reads it back to an equal system.
Json to_json(const System& system);

/// What the system declares of kernels slowing each other down when run together (a kernel's PBS
/// `slowdown` other than 1, or a `batches` table), in words; empty when nothing. Only the PBS
/// model carries it: the SMLP, RTGPU and FIFO models (and bounds on them) take every kernel at
/// its isolated time.
std::string declared_interference(const System& system);

/// Reads any task format by its "format" ("gpurt/system@1", "gpurt/smlp@1", "gpurt/rtgpu@1",
/// "gpurt/pbs@1", "gpurt/fifo@1") into a system. Throws InputError.
System parse_any_system(const Json& document, const std::string& file);
System load_any_system(const std::string& path);

/// A derived model, or why the model does not apply (then `model` is empty and `why` says
/// which task/segment/field stops it).
template <class M>
struct Derived {
  std::optional<M> model;
  std::string why;
  bool applies() const { return model.has_value(); }
};

/// SMLP (FFT/SMLP seed): one kernel per job; L(i,k) from wcet_by_units, else from work
/// (RTGPU Lemma 5.1 with k units' SMs), else from wcet and the block shape (waves).
Derived<SmlpSystem> to_smlp(const System& system);

/// Per task, the most its copies wait for other tasks' copies in one job: for each of its
/// copies, the longest copy of every other task on the same copy engine (one engine for both
/// directions when the platform has one, else one per direction). to_smlp puts it in each
/// task's copy_wait, which the SMLP, k-exclusion and federated bounds add.
std::vector<Nanos> copy_waits(const System& system);
/// RTGPU (RTGPU seed eq. 4): CPU, copy, GPU, copy, CPU, ...; every kernel needs `work`.
Derived<RtgpuSystem> to_rtgpu(const System& system);
/// PBS (PBS seed §2.2): single-kernel tasks without CPU or copy work, D <= T, with a shape.
Derived<PbsSystem> to_pbs(const System& system);
/// FIFO (FIFO model seed §IV): single-kernel tasks without CPU or copy work, D = T.
Derived<FifoSystem> to_fifo(const System& system);

/// L(i,k) that to_smlp uses for `kernel` (wcet_by_units as given, else derived for k = 1..H), or
/// why there is none.
Derived<std::vector<Nanos>> kernel_wcet_by_units(const System& system, const SystemKernel& kernel);
/// C (the kernel alone on the whole GPU) that to_pbs and to_fifo use, or why there is none:
/// wcet, else L(i,H) when wcet_by_units reaches H, else RTGPU Lemma 5.1's bound on every SM, else
/// workload / (blocks · threads).
Derived<Nanos> kernel_whole_gpu_wcet(const System& system, const SystemKernel& kernel);

/// Each model read into a system (lossless: to_X(from_X(m)) equals m in file form).
System from_smlp(const SmlpSystem& smlp);
System from_rtgpu(const RtgpuSystem& rtgpu);
System from_pbs(const PbsSystem& pbs);
System from_fifo(const FifoSystem& fifo);

}  // namespace gpurt
