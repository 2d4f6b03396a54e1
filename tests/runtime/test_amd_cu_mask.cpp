// AMD SE-packed and SE-distributed CU masks on a Radeon VII (60 CUs, 4 SEs): Dissertation
// §4.2.3.1 (Fig. 4.8: bit i -> SE i % 4; Table 4.2) and §6.1.3 (Fig. 6.1 partition layouts).
#include <gtest/gtest.h>

#include <bit>

#include "gpurt/core/error.hpp"
#include "gpurt/runtime/amd_cu_mask.hpp"
#include "gpurt/runtime/lock.hpp"

using namespace gpurt;

namespace {

constexpr AmdCuTopology kRadeonVii{60, 4};

// CUs of the mask on each SE.
std::vector<int> per_se(const gpurt_mask& m) {
  std::vector<int> n(4, 0);
  for (int b : mask_units(m)) ++n[static_cast<std::size_t>(amd_se_of_bit(kRadeonVii, b))];
  return n;
}

}  // namespace

TEST(AmdCuMask, Fig48BitToShaderEngine) {
  // The first of every four bits is SE 0: a 15-CU SE-packed mask is exactly SE 0.
  const gpurt_mask se0 = amd_cu_mask(kRadeonVii, AmdCuLayout::se_packed, 0, 15);
  EXPECT_EQ(se0.bits[0], 0x1111111111111111ULL & ((1ULL << 60) - 1));
  EXPECT_EQ(per_se(se0), (std::vector<int>{15, 0, 0, 0}));
  // SE-distributed with 4 CUs: one CU on each SE.
  EXPECT_EQ(per_se(amd_cu_mask(kRadeonVii, AmdCuLayout::se_distributed, 0, 4)),
            (std::vector<int>{1, 1, 1, 1}));
}

TEST(AmdCuMask, Table42TwoWayPartitions) {
  // SE-packed, equal partitions: every even bit (SEs 0 and 2) against every odd bit (SEs 1, 3).
  const auto packed = amd_partition_masks(kRadeonVii, AmdCuLayout::se_packed, 2);
  ASSERT_EQ(packed.size(), 2U);
  EXPECT_EQ(packed[0].bits[0], 0x0555555555555555ULL);
  EXPECT_EQ(packed[1].bits[0], 0x0AAAAAAAAAAAAAAAULL);
  EXPECT_EQ(per_se(packed[0]), (std::vector<int>{15, 0, 15, 0}));
  // SE-distributed, equal partitions: "1111...0000" / "0000...1111" -- the low and high 30 bits,
  // which cannot split 30 CUs evenly over 4 SEs.
  const auto dist = amd_partition_masks(kRadeonVii, AmdCuLayout::se_distributed, 2);
  EXPECT_EQ(dist[0].bits[0], (1ULL << 30) - 1);
  EXPECT_EQ(dist[1].bits[0], ((1ULL << 60) - 1) & ~((1ULL << 30) - 1));
  EXPECT_EQ(per_se(dist[0]), (std::vector<int>{8, 8, 7, 7}));
  EXPECT_EQ(per_se(dist[1]), (std::vector<int>{7, 7, 8, 8}));
}

TEST(AmdCuMask, Fig61ThreeAndFourWayLayouts) {
  // Three-way SE-distributed: five CUs on each SE per partition.
  for (const gpurt_mask& m : amd_partition_masks(kRadeonVii, AmdCuLayout::se_distributed, 3)) {
    EXPECT_EQ(per_se(m), (std::vector<int>{5, 5, 5, 5}));
  }
  // Four-way SE-packed: each partition is one whole SE, all SEs used once.
  std::vector<int> se_seen;
  for (const gpurt_mask& m : amd_partition_masks(kRadeonVii, AmdCuLayout::se_packed, 4)) {
    const auto n = per_se(m);
    const auto full = std::find(n.begin(), n.end(), 15);
    ASSERT_NE(full, n.end());
    EXPECT_EQ(std::count(n.begin(), n.end(), 0), 3);
    se_seen.push_back(static_cast<int>(full - n.begin()));
  }
  EXPECT_EQ(se_seen, (std::vector<int>{0, 2, 1, 3}));
}

TEST(AmdCuMask, PartitionsAreDisjointAndCoverEveryCu) {
  for (AmdCuLayout layout : {AmdCuLayout::se_packed, AmdCuLayout::se_distributed}) {
    for (int parts = 1; parts <= 60; ++parts) {
      std::uint64_t seen = 0;
      int smallest = 61, largest = 0;
      for (const gpurt_mask& m : amd_partition_masks(kRadeonVii, layout, parts)) {
        EXPECT_EQ(seen & m.bits[0], 0U) << parts;
        seen |= m.bits[0];
        smallest = std::min(smallest, mask_count(m));
        largest = std::max(largest, mask_count(m));
      }
      EXPECT_EQ(seen, (1ULL << 60) - 1) << parts;
      EXPECT_LE(largest - smallest, 1) << parts;
    }
  }
}

TEST(AmdCuMask, SePackedSixteenCusSpillOneCuOntoASecondSe) {
  // The Fig. 4.9 jump: 16 SE-packed CUs are 15 on SE 0 and a lone CU on SE 2.
  EXPECT_EQ(per_se(amd_cu_mask(kRadeonVii, AmdCuLayout::se_packed, 0, 16)), (std::vector<int>{15, 0, 1, 0}));
}

TEST(AmdCuMask, HipWordsAndBadInput) {
  const gpurt_mask m = amd_cu_mask(kRadeonVii, AmdCuLayout::se_distributed, 30, 30);
  const auto words = amd_hip_cu_mask_words(m, 60);
  ASSERT_EQ(words.size(), 2U);
  EXPECT_EQ(words[0], 0xC0000000U);
  EXPECT_EQ(words[1], 0x0FFFFFFFU);
  EXPECT_THROW(amd_cu_mask({60, 7}, AmdCuLayout::se_packed, 0, 1), Error);
  EXPECT_THROW(amd_cu_mask(kRadeonVii, AmdCuLayout::se_packed, 50, 11), Error);
  EXPECT_THROW(amd_partition_masks(kRadeonVii, AmdCuLayout::se_packed, 0), Error);
  EXPECT_THROW(amd_partition_masks({512, 4}, AmdCuLayout::se_packed, 2), Error);
}
