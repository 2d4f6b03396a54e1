// An instance's sm_mask (per-SM, from the config) as a unit mask of a partition backend
// (runtime/partition.hpp): a backend can express the mask only when it is a union of whole
// units — TPC pairs for libsmctrl, groups of unit_sms SMs for green contexts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpurt/model/scenario.hpp"
#include "gpurt/runtime/gpurt.h"
#include "gpurt/runtime/partition.hpp"

namespace gpurt {

/// The units whose SMs are exactly the enabled ones of `sms` (unit u = SMs
/// [u·unit_sms, (u+1)·unit_sms)), or nullopt with `why` set: a unit partly enabled, enabled
/// SMs past the last whole unit, more than 256 units, or no SM enabled.
std::optional<gpurt_mask> units_for_sm_mask(const std::vector<bool>& sms, int unit_sms, int units,
                                            std::string& why);

/// "0x..." of the enabled SMs, bit s = SM s, for messages.
std::string sm_mask_hex(const std::vector<bool>& sms);

/// Whether an instance's sm_mask restricts it (some SM disabled).
bool restricts(const std::vector<bool>& sm_mask);

/// The gpu backend applies an sm_mask through libsmctrl, else green contexts (gpu_backend.cpp).
/// Before anything runs, every restricting mask must be one of them can give on this GPU;
/// `backends` is partition_backends() of the device. Throws InputError(scenario.source,
/// "benchmarks[i].sm_mask", ..., why each backend cannot) for the first that is not.
void check_sm_masks(const Scenario& scenario, const std::vector<PartitionBackendInfo>& backends);

}  // namespace gpurt
