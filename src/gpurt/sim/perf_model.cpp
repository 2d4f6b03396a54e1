#include "gpurt/sim/perf_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpurt::sim {

PerfModel::PerfModel(const PerfParams& params, int sms, std::uint64_t seed, bool worst_case)
    : _p(params),
      _ideal(params.blocks_ideal()),
      _worst(worst_case),
      _seed(seed),
      _last(static_cast<std::size_t>(sms), -1),
      _resident(static_cast<std::size_t>(sms)) {}

Nanos PerfModel::start(const BlockStart& b) {
  if (_ideal) return b.isolated;
  const auto sm = static_cast<std::size_t>(b.sm);
  double factor = 1.0;
  // Per-SM locality: a cold SM after another working set, and sharing the SM with one. Only a
  // cost that is on needs its bookkeeping (the AMD presets carry neither).
  if (_p.switch_cost != 0) {
    if (_last[sm] >= 0 && _last[sm] != b.locality) factor *= 1.0 + _p.switch_cost;
    _last[sm] = b.locality;
  }
  if (_p.coresidence_cost != 0) {
    auto& here = _resident[sm];
    if (std::any_of(here.begin(), here.end(), [&](const auto& r) { return r.first != b.locality; }))
      factor *= 1.0 + _p.coresidence_cost;
    auto mine = std::find_if(here.begin(), here.end(), [&](const auto& r) { return r.first == b.locality; });
    if (mine == here.end()) {
      here.emplace_back(b.locality, 1);
    } else {
      ++mine->second;
    }
  }
  // Spreading over more SMs costs synchronisation and L2 traffic.
  if (b.span > 1 && _p.spread_cost != 0)
    factor *= 1.0 + _p.spread_cost * std::log2(static_cast<double>(b.span));
  // Memory bandwidth: the memory-bound part stretches by demand / bandwidth while demand exceeds
  // it (evaluated at the block's start: an approximation of fluid sharing, docs/simulator.md).
  _demand += b.memory_fraction;
  if (_p.memory_bandwidth > 0 && b.memory_fraction > 0 && _demand > _p.memory_bandwidth && !b.wcet)
    factor *= 1.0 - b.memory_fraction + b.memory_fraction * (_demand / _p.memory_bandwidth);
  // Run-to-run variability: U in [0, 1) from the seed and the block's key alone.
  std::uint64_t state = _seed ^ (b.key * 0x9E3779B97F4A7C15ULL);
  const double u = _worst ? 1.0 : static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
  factor *= 1.0 + _p.jitter * u;
  if (_p.kernel_jitter > 0) {
    std::uint64_t kstate = (_seed + 0x632BE59BD9B4E019ULL) ^ ((b.kernel + 1) * 0xD1B54A32D192ED03ULL);
    const double uk = _worst ? 1.0 : static_cast<double>(splitmix64(kstate) >> 11) * 0x1.0p-53;
    factor *= 1.0 + _p.kernel_jitter * uk;
  }
  if (b.wcet) {
    // The WCET already holds the worst of every draw: scale down by the worst factor (the
    // spread factor, known exactly, cancels).
    const double spread = b.span > 1 ? 1.0 + _p.spread_cost * std::log2(static_cast<double>(b.span)) : 1.0;
    factor /= (1.0 + _p.switch_cost) * (1.0 + _p.coresidence_cost) * (1.0 + _p.jitter) *
              (1.0 + _p.kernel_jitter) * spread;
    const double ns = std::floor(static_cast<double>(b.isolated.count()) * std::min(1.0, factor));
    const std::int64_t least = std::clamp<std::int64_t>(b.floor.count(), 1, b.isolated.count());
    return Nanos{std::clamp<std::int64_t>(static_cast<std::int64_t>(ns), least, b.isolated.count())};
  }
  const double ns = std::ceil(static_cast<double>(b.isolated.count()) * factor);
  // Parameters are bounded (perf_params.cpp) and block times by the scenario limits, so this
  // cannot overflow; the clamp keeps it so if a caller passes something larger.
  constexpr double cap = static_cast<double>(std::numeric_limits<std::int64_t>::max() / 4);
  return Nanos{static_cast<std::int64_t>(std::clamp(ns, 1.0, cap))};
}

void PerfModel::end(int sm, int locality, double memory_fraction) {
  if (_ideal) return;
  if (_p.coresidence_cost != 0) {
    auto& here = _resident[static_cast<std::size_t>(sm)];
    auto mine = std::find_if(here.begin(), here.end(), [&](const auto& r) { return r.first == locality; });
    if (mine != here.end() && --mine->second == 0) here.erase(mine);
  }
  _demand = std::max(0.0, _demand - memory_fraction);
}

}  // namespace gpurt::sim
