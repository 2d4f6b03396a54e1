// compute_unit_mask (the examiner HIP port's field) and the SE-packed / SE-distributed layouts
// as the simulator reads them (model/amd_cu_layout.hpp).
#include <gtest/gtest.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/amd_cu_layout.hpp"

namespace gpurt {
namespace {

const Platform& radeon() { return *find_platform_preset("radeon-vii"); }

std::vector<bool> mask(const std::string& json, const Platform& p = radeon()) {
  const Json doc = parse_json(json, "m.json");
  return parse_compute_unit_mask(JsonNode(doc, "m.json"), p);
}

std::vector<int> enabled(const std::vector<bool>& m) {
  std::vector<int> out;
  for (std::size_t i = 0; i < m.size(); ++i)
    if (m[i]) out.push_back(static_cast<int>(i));
  return out;
}

TEST(ComputeUnitMask, BinaryStringHexAndArrayForms) {
  // Character i enables CU i; a short mask leaves the rest enabled (the HIP port's rule).
  EXPECT_EQ(enabled(mask("\"01" + std::string(58, '0') + "\"")), (std::vector<int>{1}));
  EXPECT_EQ(enabled(mask("\"0\"")).size(), 59U);
  // Hex, as the HIP port reads it: the i-th digit from the left holds CUs 4i..4i+3, its lowest
  // bit CU 4i. "0x5000..." = CUs 0 and 2; the other 52 hex-covered bits clear, 56..59 on.
  const auto hex = enabled(mask("\"0x50000000000000\""));
  EXPECT_EQ(hex, (std::vector<int>{0, 2, 56, 57, 58, 59}));  // 14 digits cover CUs 0..55
  // "0xf0": CUs 0..3 on, 4..7 off (the number's own bit order turned off CUs 0..3 instead).
  EXPECT_EQ(enabled(mask("\"0xf0\"")).size(), 56U);
  EXPECT_EQ(enabled(mask("\"0xf0\"")).front(), 0);
  EXPECT_EQ(enabled(mask("\"0xf0\""))[4], 8);
  // An odd length: "0x123" = digit 0 '1' (CU 0), digit 1 '2' (CU 5), digit 2 '3' (CUs 8, 9).
  const std::vector<int> odd = enabled(mask("\"0x123\""));
  EXPECT_EQ(std::vector<int>(odd.begin(), odd.begin() + 5), (std::vector<int>{0, 5, 8, 9, 12}));
  EXPECT_EQ(enabled(mask("[false, true, false]")).front(), 1);
}

TEST(ComputeUnitMask, LayoutObjects) {
  // SE-packed 30 CUs = SEs 0 and 2 = every even bit (Table 4.2's "1010...1010").
  const auto packed = mask(R"({"layout": "se-packed", "count": 30})");
  for (int i = 0; i < 60; ++i) EXPECT_EQ(packed[static_cast<std::size_t>(i)], i % 2 == 0) << i;
  // SE-distributed 30 CUs from 30 = bits 30..59 ("0000...1111").
  EXPECT_EQ(enabled(mask(R"({"layout": "se-distributed", "first": 30, "count": 30})")).front(), 30);
  // SE-packed position 15 is the first CU of SE 2: bit 2.
  EXPECT_EQ(amd_cu_bit_at({60, 4}, AmdCuLayout::se_packed, 15), 2);
}

TEST(ComputeUnitMask, BadInputNamesTheProblem) {
  auto message = [](const std::string& json, const Platform& p) {
    try {
      mask(json, p);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("\"" + std::string(60, '0') + "\"", radeon()).find("enables no CU"), std::string::npos);
  EXPECT_NE(message("\"" + std::string(61, '1') + "\"", radeon()).find("enables CU 60"), std::string::npos);
  EXPECT_NE(message("\"10x1\"", radeon()).find("is not 0 or 1"), std::string::npos);
  EXPECT_NE(message(R"({"layout": "packed", "count": 3})", radeon()).find("se-packed"), std::string::npos);
  EXPECT_NE(message(R"({"layout": "se-packed", "count": 61})", radeon()).find("count"), std::string::npos);
  EXPECT_NE(message("\"1\"", *find_platform_preset("h100")).find("not an AMD GPU"), std::string::npos);
}

}  // namespace
}  // namespace gpurt
