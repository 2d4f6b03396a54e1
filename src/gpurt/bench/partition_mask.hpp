// An instance's sm_mask (per-SM, from the config) as a unit mask of a partition backend
// (runtime/partition.hpp): a backend can express the mask only when it is a union of whole
// units — TPC pairs for libsmctrl, groups of unit_sms SMs for green contexts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpurt/runtime/gpurt.h"

namespace gpurt {

/// The units whose SMs are exactly the enabled ones of `sms` (unit u = SMs
/// [u·unit_sms, (u+1)·unit_sms)), or nullopt with `why` set: a unit partly enabled, enabled
/// SMs past the last whole unit, more than 256 units, or no SM enabled.
std::optional<gpurt_mask> units_for_sm_mask(const std::vector<bool>& sms, int unit_sms, int units,
                                            std::string& why);

/// "0x..." of the enabled SMs, bit s = SM s, for messages.
std::string sm_mask_hex(const std::vector<bool>& sms);

}  // namespace gpurt
