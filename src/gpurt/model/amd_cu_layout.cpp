#include "gpurt/model/amd_cu_layout.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

std::string_view to_string(AmdCuLayout layout) {
  return layout == AmdCuLayout::se_packed ? "se-packed" : "se-distributed";
}

void check_topology(AmdCuTopology topo) {
  if (topo.cus <= 0 || topo.ses <= 0 || topo.cus % topo.ses != 0) {
    throw Error(fmt::format("AMD CU topology {} CUs / {} SEs: CUs must be a positive multiple of SEs",
                            topo.cus, topo.ses));
  }
}

int amd_cu_bit_at(AmdCuTopology topo, AmdCuLayout layout, int position) {
  if (layout == AmdCuLayout::se_distributed) return position;  // bit order cycles through the SEs
  const int per_se = topo.cus / topo.ses;
  const int se_rank = position / per_se;  // the how-many-th SE to fill
  const int j = position % per_se;        // CU within that SE
  const int evens = (topo.ses + 1) / 2;
  const int se = se_rank < evens ? 2 * se_rank : 2 * (se_rank - evens) + 1;
  return j * topo.ses + se;
}

std::vector<bool> amd_cu_set(AmdCuTopology topo, AmdCuLayout layout, int first, int count) {
  check_topology(topo);
  if (first < 0 || count < 0 || first + count > topo.cus) {
    throw Error(fmt::format("CU range [{}, {}) is outside 0..{}", first, first + count, topo.cus));
  }
  std::vector<bool> set(static_cast<std::size_t>(topo.cus), false);
  for (int p = first; p < first + count; ++p)
    set[static_cast<std::size_t>(amd_cu_bit_at(topo, layout, p))] = true;
  return set;
}

AmdCuTopology amd_topology(const Platform& platform) {
  return AmdCuTopology{platform.sms, platform.shader_engines};
}

std::vector<bool> parse_compute_unit_mask(const JsonNode& node, const Platform& platform) {
  if (platform.vendor != Vendor::amd || platform.shader_engines <= 0) {
    node.fail(fmt::format("is an AMD CU mask, but {} is not an AMD GPU with shader engines (use sm_mask)",
                          platform.id));
  }
  const auto cus = static_cast<std::size_t>(platform.sms);
  std::vector<bool> set(cus, true);
  auto assign = [&](std::size_t i, bool on) {
    if (i >= cus) {
      if (on) node.fail(fmt::format("enables CU {} but {} has {} CUs (0..{})", i, platform.id, cus, cus - 1));
      return;
    }
    set[i] = on;
  };
  if (node.is_array()) {
    const auto items = node.items();
    for (std::size_t i = 0; i < items.size(); ++i) assign(i, items[i].as_bool());
  } else if (node.is_object()) {
    node.expect_object({"layout", "first", "count", "comment"});
    const JsonNode l = node.at("layout");
    const std::string name = l.as_string();
    AmdCuLayout layout = AmdCuLayout::se_packed;
    if (name == "se-distributed")
      layout = AmdCuLayout::se_distributed;
    else if (name != "se-packed")
      l.fail("must be \"se-packed\" or \"se-distributed\"");
    const auto n = static_cast<std::int64_t>(cus);
    const int first = node.has("first") ? static_cast<int>(node.at("first").as_int_in(0, n - 1)) : 0;
    const int count = static_cast<int>(node.at("count").as_int_in(1, n - first));
    set = amd_cu_set(amd_topology(platform), layout, first, count);
  } else {
    std::string text = node.as_string();
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
      text.erase(0, 2);
      // The HIP port's reading (hip_plugin_framework's ParseComputeUnitMaskHex): the i-th digit
      // FROM THE LEFT holds CUs 4i..4i+3, its lowest bit CU 4i, as the binary form's i-th
      // character is CU i; not the number's own bit order ("0x10" enables CU 0 of the first 8,
      // not CU 4).
      const std::vector<bool> bits = hex_bits(node, text);  // bit 4d + b: digit d from the right
      const std::size_t digits = text.size();
      for (std::size_t p = 0; p < bits.size(); ++p) assign(4 * (digits - 1 - p / 4) + p % 4, bits[p]);
    } else {
      if (text.empty()) node.fail("must be a string of '0'/'1' characters, \"0x...\", an array or an object");
      for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '0' && text[i] != '1')
          node.fail(fmt::format("character {} ('{}') is not 0 or 1", i, text[i]));
        assign(i, text[i] == '1');
      }
    }
  }
  if (std::none_of(set.begin(), set.end(), [](bool b) { return b; }))
    node.fail("enables no CU: no block could ever run");
  return set;
}

}  // namespace gpurt
