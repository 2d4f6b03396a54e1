// A GPU as gpurt sees it: SMs (AMD: CUs) with per-SM resource limits, the unit in which SMs
// are handed out to partitions, and copy engines. One type for analysis, simulator and runtime.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpurt/core/json.hpp"
#include "gpurt/model/perf_params.hpp"

namespace gpurt {

enum class Vendor { nvidia, amd };
std::string_view to_string(Vendor vendor);

/// One GPU. Per-SM limits are what one SM (CU) can hold at once; a block occupies its share
/// of them on one SM from its start to its end.
struct Platform {
  std::string id;    ///< preset id ("rtx3060ti") or a user-chosen name
  std::string name;  ///< marketing name ("NVIDIA GeForce RTX 3060 Ti")
  Vendor vendor = Vendor::nvidia;
  int sms = 0;                       ///< streaming multiprocessors (AMD: compute units)
  int max_threads = 0;               ///< resident threads per SM
  int max_blocks = 0;                ///< resident blocks per SM
  int registers = 0;                 ///< 32-bit registers per SM
  std::int64_t shared_memory = 0;    ///< bytes of shared memory (AMD: LDS) per SM
  int max_threads_per_block = 1024;  ///< largest block the GPU accepts
  int partition_unit = 1;            ///< SMs per allocatable unit: 1 = SM/CU masks, 2 = TPC masks
  int copy_engines = 1;              ///< DMA engines usable concurrently with kernels
  int shader_engines = 0;            ///< AMD shader engines (0: not modelled / NVIDIA)
  /// The simulator's performance model ("model" in the file; all zero: the ideal model).
  /// Presets carry fitted values where the seeds published measurements (docs/validation.md).
  PerfParams model{};

  /// Allocatable units H = floor(sms / partition_unit) (the SMLP's H; TPCs on the seeds' RTX
  /// GPUs). SMs beyond the last whole unit are not allocatable (e.g. H100 with 8-SM green-context
  /// groups: 16 units, 4 SMs left over).
  int units() const { return sms / partition_unit; }
};

/// Presets for the GPUs in the seed papers and for H100/H200 (see presets.cpp for sources).
std::span<const Platform> platform_presets();
/// The preset with this id, or nullptr.
const Platform* find_platform_preset(std::string_view id);

/// Reads a platform from a file value: a preset id string, or an object with every field,
/// or an object with "preset" plus the fields to override. Throws InputError.
Platform parse_platform(const JsonNode& node);
/// Writes every field (with "format": "gpurt/platform@1").
Json to_json(const Platform& platform);
/// Checks the invariants parse_platform enforces; throws gpurt::Error naming the field.
void validate(const Platform& platform);

}  // namespace gpurt
