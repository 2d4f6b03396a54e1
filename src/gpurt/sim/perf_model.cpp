#include "gpurt/sim/perf_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpurt::sim {

namespace {

// Min-heap order of running fluid blocks: earliest finish first, then sequence number.
template <class R>
bool later(const R& x, const R& y) noexcept {
  return x.finish != y.finish ? x.finish > y.finish : x.payload.seq > y.payload.seq;
}

// A clock's rounding where its values reach `magnitude`: finishes and clocks are sums of
// products of doubles, so two equal in exact arithmetic may differ in their last places.
double slack(double magnitude) noexcept {
  return 1e-7 + 4 * std::numeric_limits<double>::epsilon() * std::abs(magnitude);
}

}  // namespace

PerfModel::PerfModel(const PerfParams& params, int sms, std::uint64_t seed, bool worst_case)
    : _p(params),
      _ideal(params.blocks_ideal()),
      _worst(worst_case),
      _seed(seed),
      _last(static_cast<std::size_t>(sms), -1),
      _resident(static_cast<std::size_t>(sms)) {
  _fluid = !_ideal && _p.memory_bandwidth > 0 && _p.memory_sharing == MemorySharing::fluid;
}

double PerfModel::factor_before_bandwidth(const BlockStart& b) {
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
  // Run-to-run variability: U in [0, 1) from the seed and the block's key alone.
  std::uint64_t state = _seed ^ (b.key * 0x9E3779B97F4A7C15ULL);
  const double u = _worst ? 1.0 : static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
  factor *= 1.0 + _p.jitter * u;
  if (_p.kernel_jitter > 0) {
    std::uint64_t kstate = (_seed + 0x632BE59BD9B4E019ULL) ^ ((b.kernel + 1) * 0xD1B54A32D192ED03ULL);
    const double uk = _worst ? 1.0 : static_cast<double>(splitmix64(kstate) >> 11) * 0x1.0p-53;
    factor *= 1.0 + _p.kernel_jitter * uk;
  }
  return factor;
}

Nanos PerfModel::start(const BlockStart& b) {
  if (_ideal) return b.isolated;
  double factor = factor_before_bandwidth(b);
  // Memory bandwidth judged at the block's start (at_start): the memory-bound part stretches by
  // demand / bandwidth while demand exceeds it. Under fluid sharing only a WCET block (whose
  // time holds its contention) comes here, and it adds to the demand all the same.
  if (b.memory_fraction > 0) _fluid_dirty = _fluid;
  _demand += b.memory_fraction;
  if (!_fluid && _p.memory_bandwidth > 0 && b.memory_fraction > 0 && _demand > _p.memory_bandwidth && !b.wcet)
    factor *= 1.0 - b.memory_fraction + b.memory_fraction * (_demand / _p.memory_bandwidth);
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

void PerfModel::start_fluid(const BlockStart& b, FluidBlock payload, int early_steps) {
  // Its work in isolated nanoseconds (whole, as a block's time alone): what its group's clock
  // must advance by before it ends.
  const double work =
      std::max(1.0, std::ceil(static_cast<double>(b.isolated.count()) * factor_before_bandwidth(b)));
  _demand += b.memory_fraction;
  _fluid_dirty = true;
  auto g = std::find_if(_groups.begin(), _groups.end(),
                        [&](const Group& x) { return x.memory_fraction == b.memory_fraction; });
  if (g == _groups.end()) {
    _groups.push_back(Group{});
    g = _groups.end() - 1;
    g->memory_fraction = b.memory_fraction;
  }
  if (g->heap.empty()) g->clock = 0;  // only differences matter: keep the clock small and exact
  const auto push = [&](double finish, const FluidBlock& f) {
    g->heap.push_back(Running{finish, f});
    std::push_heap(g->heap.begin(), g->heap.end(), later<Running>);
  };
  const std::uint64_t seq = payload.seq;
  // As Simulator::schedule_wave_steps, operation for operation, so that at full speed a step
  // comes at the same nanosecond.
  const double spread = _p.wave_release * work;
  for (int k = 0; k < early_steps; ++k) {
    FluidBlock step = payload;
    step.step = k;
    step.seq = seq + static_cast<std::uint64_t>(k);
    const auto early = static_cast<std::int64_t>(spread * (early_steps - k) / early_steps);
    push(g->clock + (work - static_cast<double>(early)), step);
  }
  payload.step = -1;
  payload.seq = seq + static_cast<std::uint64_t>(early_steps);
  push(g->clock + work, payload);
}

void PerfModel::end(int sm, int locality, double memory_fraction) {
  if (_ideal) return;
  if (_p.coresidence_cost != 0) {
    auto& here = _resident[static_cast<std::size_t>(sm)];
    auto mine = std::find_if(here.begin(), here.end(), [&](const auto& r) { return r.first == locality; });
    if (mine != here.end() && --mine->second == 0) here.erase(mine);
  }
  if (memory_fraction > 0) _fluid_dirty = _fluid;
  _demand = std::max(0.0, _demand - memory_fraction);
}

double PerfModel::speed(double m) const noexcept {
  const double stretch = std::max(1.0, _demand / _p.memory_bandwidth);
  return 1.0 / (1.0 - m + m * stretch);
}

void PerfModel::advance(Nanos now) {
  if (now <= _clock_time) return;
  const auto elapsed = static_cast<double>((now - _clock_time).count());
  for (Group& g : _groups) {
    if (g.heap.empty()) continue;
    g.clock += elapsed * g.speed;
    if (g.clock > 0x1.0p40) {  // a uniform shift keeps the heap's order
      for (Running& r : g.heap) r.finish -= g.clock;
      g.clock = 0;
    }
  }
  _clock_time = now;
}

Nanos PerfModel::remaining(const Group& g, const Running& r) const noexcept {
  const double ns = std::ceil((r.finish - g.clock - slack(std::max(r.finish, g.clock))) / g.speed);
  constexpr double cap = static_cast<double>(std::numeric_limits<std::int64_t>::max() / 4);
  return Nanos{static_cast<std::int64_t>(std::clamp(ns, 1.0, cap))};
}

void PerfModel::reschedule(Nanos now) {
  _fluid_dirty = false;
  _next_end = Nanos{-1};
  for (Group& g : _groups) {
    g.speed = speed(g.memory_fraction);
    g.next_end = g.heap.empty() ? Nanos{-1} : now + remaining(g, g.heap.front());
    if (g.next_end.count() >= 0 && (_next_end.count() < 0 || g.next_end < _next_end)) _next_end = g.next_end;
  }
}

void PerfModel::take_due(Nanos now, std::vector<FluidBlock>& out) {
  const std::size_t first_taken = out.size();
  for (Group& g : _groups) {
    if (g.next_end != now) continue;
    g.next_end = Nanos{-1};
    _fluid_dirty = true;  // the group's next end (or wavefront step) must be set
    // Its end was set for the earliest block's finish, rounded up to a nanosecond: that block is
    // done, and so is every other whose finish the clock has reached, within the clock's rounding.
    bool first = true;
    while (!g.heap.empty() &&
           (first || g.heap.front().finish <= g.clock + slack(std::max(g.heap.front().finish, g.clock)))) {
      first = false;
      std::pop_heap(g.heap.begin(), g.heap.end(), later<Running>);
      out.push_back(g.heap.back().payload);
      g.heap.pop_back();
    }
  }
  _next_end = Nanos{-1};
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first_taken), out.end(),
            [](const FluidBlock& x, const FluidBlock& y) { return x.seq < y.seq; });
}

void PerfModel::project_running(Nanos now, std::vector<std::pair<FluidBlock, Nanos>>& out) const {
  for (const Group& g : _groups)
    for (const Running& r : g.heap) out.emplace_back(r.payload, now + remaining(g, r));
}

}  // namespace gpurt::sim
