#include "gpurt/bench/partition_mask.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

std::optional<gpurt_mask> units_for_sm_mask(const std::vector<bool>& sms, int unit_sms, int units,
                                            std::string& why) {
  if (unit_sms < 1 || units < 1) {
    why = "the backend reports no units";
    return std::nullopt;
  }
  if (units > 256) {
    why = fmt::format("{} units do not fit a 256-unit mask", units);
    return std::nullopt;
  }
  gpurt_mask m{};
  int enabled = 0;
  for (std::size_t s = 0; s < sms.size(); ++s) {
    if (!sms[s]) continue;
    ++enabled;
    const int unit = static_cast<int>(s) / unit_sms;
    if (unit >= units) {
      why = fmt::format("SM {} is not in any of the {} whole units of {} SMs", s, units, unit_sms);
      return std::nullopt;
    }
  }
  if (enabled == 0) {
    why = "no SM is enabled";
    return std::nullopt;
  }
  for (int u = 0; u < units; ++u) {
    int on = 0;
    for (int k = 0; k < unit_sms; ++k) {
      const auto s = static_cast<std::size_t>(u * unit_sms + k);
      if (s < sms.size() && sms[s]) ++on;
    }
    if (on == 0) continue;
    if (on != unit_sms) {
      why = fmt::format("unit {} (SMs {}..{}) is only partly enabled ({} of {} SMs)", u, u * unit_sms,
                        (u + 1) * unit_sms - 1, on, unit_sms);
      return std::nullopt;
    }
    m.bits[u / 64] |= std::uint64_t{1} << (u % 64);
  }
  return m;
}

std::string sm_mask_hex(const std::vector<bool>& sms) {
  std::string hex;
  for (std::size_t nibble = 0; nibble * 4 < sms.size(); ++nibble) {
    int v = 0;
    for (std::size_t b = 0; b < 4; ++b) {
      const std::size_t s = nibble * 4 + b;
      if (s < sms.size() && sms[s]) v |= 1 << b;
    }
    hex.insert(hex.begin(), "0123456789abcdef"[v]);
  }
  while (hex.size() > 1 && hex.front() == '0') hex.erase(hex.begin());
  return "0x" + hex;
}

bool restricts(const std::vector<bool>& sm_mask) {
  return std::find(sm_mask.begin(), sm_mask.end(), false) != sm_mask.end();
}

void check_sm_masks(const Scenario& scenario, const std::vector<PartitionBackendInfo>& backends) {
  for (std::size_t i = 0; i < scenario.instances.size(); ++i) {
    const std::vector<bool>& mask = scenario.instances[i].sm_mask;
    if (!restricts(mask)) continue;
    std::string reasons;
    bool ok = false;
    for (const char* name : {"libsmctrl", "green-context"}) {  // the order gpu_backend.cpp tries
      const auto b = std::find_if(backends.begin(), backends.end(),
                                  [&](const PartitionBackendInfo& x) { return x.name == name; });
      std::string why;
      if (b == backends.end()) {
        why = "not built in";
      } else if (!b->available) {
        why = b->note.empty() ? "unavailable" : b->note;
      } else if (units_for_sm_mask(mask, b->unit_sms, b->units, why)) {
        ok = true;
        break;
      }
      reasons += fmt::format("; {}: {}", name, why);
    }
    if (!ok) {
      throw InputError(scenario.source, fmt::format("benchmarks[{}].sm_mask", i), "",
                       fmt::format("enables SMs {}, which no partition backend of this GPU can give{}",
                                   sm_mask_hex(mask), reasons));
    }
  }
}

}  // namespace gpurt
