#include "gpurt/runtime/amd_cu_mask.hpp"

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace {

void check(AmdCuTopology topo) {
  if (topo.cus <= 0 || topo.ses <= 0 || topo.cus % topo.ses != 0 || topo.cus > GPURT_MAX_UNITS) {
    throw Error(
        fmt::format("AMD CU topology {} CUs / {} SEs: CUs must be a positive multiple of SEs, at most {}",
                    topo.cus, topo.ses, GPURT_MAX_UNITS));
  }
}

}  // namespace

gpurt_mask amd_cu_mask(AmdCuTopology topo, AmdCuLayout layout, int first, int count) {
  check(topo);
  if (first < 0 || count < 0 || first + count > topo.cus) {
    throw Error(fmt::format("CU range [{}, {}) is outside 0..{}", first, first + count, topo.cus));
  }
  gpurt_mask m{};
  for (int p = first; p < first + count; ++p) {
    const int b = amd_cu_bit_at(topo, layout, p);
    m.bits[b / 64] |= std::uint64_t{1} << (b % 64);
  }
  return m;
}

std::vector<gpurt_mask> amd_partition_masks(AmdCuTopology topo, AmdCuLayout layout, int parts) {
  check(topo);
  if (parts < 1 || parts > topo.cus) {
    throw Error(fmt::format("{} partitions of {} CUs: must be 1..{}", parts, topo.cus, topo.cus));
  }
  std::vector<gpurt_mask> out;
  int first = 0;
  for (int i = 0; i < parts; ++i) {
    const int size = topo.cus / parts + (i < topo.cus % parts ? 1 : 0);
    out.push_back(amd_cu_mask(topo, layout, first, size));
    first += size;
  }
  return out;
}

std::vector<std::uint32_t> amd_hip_cu_mask_words(const gpurt_mask& mask, int cus) {
  std::vector<std::uint32_t> words(static_cast<std::size_t>((cus + 31) / 32), 0);
  for (int i = 0; i < cus && i < GPURT_MAX_UNITS; ++i) {
    if (((mask.bits[i / 64] >> (i % 64)) & 1U) != 0)
      words[static_cast<std::size_t>(i / 32)] |= 1U << (i % 32);
  }
  return words;
}

}  // namespace gpurt
