#include "gpurt/model/cufft_model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace {

Nanos round_up(double ns) {
  return Nanos{std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(ns)))};
}

KernelSpec whole_sm_kernel(const std::string& name, int blocks, Nanos block_time, const Platform& p,
                           double slowdown) {
  KernelSpec k;
  k.name = name;
  k.blocks = blocks;
  // One block per SM: as many threads as a block may have and all of the SM's shared memory,
  // so the SM count, not the occupancy calculator, sets the parallelism.
  k.shape.threads = std::min(p.max_threads_per_block, p.max_threads);
  k.shape.shared_memory = p.shared_memory;
  k.block_time = block_time;
  k.slowdown = slowdown;
  return k;
}

}  // namespace

std::vector<KernelSpec> cufft_kernels(const CufftShape& shape, const Platform& p, const CufftModelParams& m) {
  if (shape.log2_size < 1 || shape.log2_size > 28) {
    throw Error(fmt::format("cuFFT model: size 2^{} is outside 2^1..2^28", shape.log2_size));
  }
  if (shape.batch < 1 || shape.batch > (1 << 20)) {
    throw Error(fmt::format("cuFFT model: batch {} is outside 1..2^20", shape.batch));
  }
  const double points = std::ldexp(1.0, shape.log2_size) * shape.batch;
  const double serial = m.serial_base_ns + m.serial_per_point_ns * points;
  const double work = m.work_per_point_stage_ns * points * shape.log2_size;  // W: one 2-SM unit
  const double grid = std::ldexp(1.0, std::max(0, shape.log2_size - 12)) * shape.batch;
  const int blocks = static_cast<int>(std::clamp(grid, 1.0, static_cast<double>(m.max_parallel_blocks)));
  // On one SM the B blocks run one after another in 2W (half a unit's speed): t = 2W/B.
  const double block = 2 * work / blocks;
  return {whole_sm_kernel("cufft_serial", 1, round_up(serial), p, m.interference_slowdown),
          whole_sm_kernel("cufft_butterflies", blocks, round_up(block), p, m.interference_slowdown)};
}

std::vector<KernelSpec> in_waves(const std::vector<KernelSpec>& kernels, int sms) {
  if (sms < 1) throw Error(fmt::format("cuFFT model: waves of {} SMs", sms));
  std::vector<KernelSpec> out;
  for (const KernelSpec& k : kernels) {
    for (int done = 0; done < k.blocks; done += sms) {
      KernelSpec wave = k;
      wave.blocks = std::min(sms, k.blocks - done);
      out.push_back(std::move(wave));
    }
  }
  return out;
}

Nanos cufft_model_time(const CufftShape& shape, const Platform& p, int units, const CufftModelParams& m) {
  if (units < 1 || units > p.units()) {
    throw Error(fmt::format("cuFFT model: {} units on {} (1..{})", units, p.id, p.units()));
  }
  Nanos total{0};
  const int sms = units * p.partition_unit;
  for (const KernelSpec& k : cufft_kernels(shape, p, m)) total += k.block_time * ((k.blocks + sms - 1) / sms);
  return total;
}

}  // namespace gpurt
