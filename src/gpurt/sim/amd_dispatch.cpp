// AMD GCN block dispatch (Dissertation §4.2.2): the second dispatch policy of the simulator,
// selected when the platform is an AMD GPU with shader engines (the Radeon VII preset).
//
// - Every stream is its own hardware queue with the stream's CU mask; the kernel at the head of
//   each queue dispatches independently of the others (one ACE per queue; the ACEs' round robin
//   over more queues than ACEs is not modelled).
// - The ACE hands a kernel's blocks to the shader engines strictly in block order, round robin
//   over the SEs on which the mask enables at least one CU (it skips only SEs with no enabled
//   CU). A block waits at its SE's workload manager until an enabled CU there can hold it; until
//   then the ACE hands out no further block of that kernel (a full SE stalls the next block,
//   Fig. 4.5).
// - The workload managers serve waiting blocks (smaller first, then least-recently-served
//   kernel first; see dispatch_amd), and a block that does not fit does not hold up another
//   kernel's block that does: smaller blocks cut ahead (§4.2.2.3, Fig. 4.7b), unlike NVIDIA's
//   primary queue (§3.4.1).
// - Contexts (processes) run concurrently: AMD's hardware scheduler maps the queues of several
//   processes at once, so there is no time slicing on this path; stream priorities are ignored.
// - With the performance model's block_dispatch_ns > 0 an ACE hands out at most one block of its
//   kernel per that interval (footnote 11: the block-dispatching hardware limits a kernel of many
//   blocks; each queue has its own ACE, so competitors do not share the limit).
// - With the performance model's wave_release > 0 a block frees its wavefronts in up to four
//   steps over the end of its time (one step per SIMD of a GCN CU), and the workload managers
//   serve the least recently served kernel first: a smaller block cuts ahead only where the
//   other does not fit (§4.2.2.3; see PerfParams::wave_release).
// - With the performance model's cu_lock_threshold > 0 a block that has failed that many
//   placement attempts at its SE gets a CU locked for it: no other kernel's block starts there
//   until it is placed (GCN's LOCK_THRESHOLD; see PerfParams::cu_lock_threshold).
// - With the performance model's lone_kernel_blocks > 0 a kernel alone on the device keeps at
//   most that many blocks resident (footnote 11; see PerfParams::lone_kernel_blocks).
#include <algorithm>
#include <bit>

#include "gpurt/sim/engine.hpp"

namespace gpurt::sim {

void Simulator::init_amd() {
  _amd = _platform.vendor == Vendor::amd && _platform.shader_engines > 0;
  if (!_amd) return;
  const int ses = _platform.shader_engines;
  _se_cus.assign(static_cast<std::size_t>(ses), {});
  _se_cursor.assign(static_cast<std::size_t>(ses), 0);
  _se_releases.assign(static_cast<std::size_t>(ses), 0);
  _se_release_log.assign(static_cast<std::size_t>(ses), {});
  _amd_awake.clear();
  _se_sleepers.clear();
  _amd_words = 0;
  _cu_lock.assign(static_cast<std::size_t>(_platform.sms), -1);
  // The driver's CU mask mapping (Fig. 4.8): flat CU bit i lies on SE i % ses.
  _cu_index.assign(static_cast<std::size_t>(_platform.sms), 0);
  for (int cu = 0; cu < _platform.sms; ++cu) {
    auto& cus = _se_cus[static_cast<std::size_t>(cu % ses)];
    _cu_index[static_cast<std::size_t>(cu)] = cus.size();
    cus.push_back(cu);
  }
}

// The workload manager of `se` places a block on the first enabled CU that can hold it,
// searching round robin from the CU after the one that got its previous block.
// Looks only; dispatch_amd moves the cursor when the block really starts.
int Simulator::place_in_se(int op, int se, const BlockShape& shape, const std::vector<bool>& mask) {
  const auto& cus = _se_cus[static_cast<std::size_t>(se)];
  const std::size_t cursor = _se_cursor[static_cast<std::size_t>(se)];
  const std::size_t n = cus.size();
  for (std::size_t i = cursor, seen = 0; seen < n; ++seen, i = i + 1 == n ? 0 : i + 1) {
    const int cu = cus[i];
    if (!mask.empty() && !mask[static_cast<std::size_t>(cu)]) continue;
    if (_device.fits(cu, shape) && lock_allows(op, cu)) return cu;
  }
  return -1;
}

// The same choice as place_in_se when the CUs that can hold the block are among those freed
// since release `since` of the SE: the first of them, in the SE's round-robin order from its
// cursor, that fits. Falls back to the full search when the log no longer reaches back.
int Simulator::place_in_se_since(int op, int se, const BlockShape& shape, const std::vector<bool>& mask,
                                 std::uint64_t since) {
  const auto s = static_cast<std::size_t>(se);
  const std::uint64_t now = _se_releases[s];
  if (now - since > kReleaseLog) return place_in_se(op, se, shape, mask);
  const std::size_t n = _se_cus[s].size();
  const std::size_t cursor = _se_cursor[s];
  int best = -1;
  std::size_t best_pos = n;
  for (std::uint64_t r = since; r < now; ++r) {
    const int cu = _se_release_log[s][r % kReleaseLog];
    const std::size_t index = _cu_index[static_cast<std::size_t>(cu)];  // cu is _se_cus[s][index]
    const std::size_t pos = index >= cursor ? index - cursor : index + n - cursor;
    if (pos >= best_pos) continue;
    if (!mask.empty() && !mask[static_cast<std::size_t>(cu)]) continue;
    if (_device.fits(cu, shape) && lock_allows(op, cu)) {
      best = cu;
      best_pos = pos;
    }
  }
  return best;
}

void Simulator::lock_cu(AmdSlot& slot, const std::vector<bool>& mask) {
  const auto& cus = _se_cus[static_cast<std::size_t>(slot.se)];
  const std::size_t cursor = _se_cursor[static_cast<std::size_t>(slot.se)];
  const std::size_t n = cus.size();
  int best = -1, best_free = -1;
  for (std::size_t i = cursor, seen = 0; seen < n; ++seen, i = i + 1 == n ? 0 : i + 1) {
    const int cu = cus[i];
    if (!mask.empty() && !mask[static_cast<std::size_t>(cu)]) continue;
    if (_cu_lock[static_cast<std::size_t>(cu)] >= 0) continue;
    const int free = _platform.max_threads - _device.resident_threads(cu);
    if (free > best_free) {
      best = cu;
      best_free = free;
    }
  }
  if (best < 0) return;  // every CU it may use is locked for another kernel: it keeps trying
  _cu_lock[static_cast<std::size_t>(best)] = slot.id;
  slot.locked_cu = best;
}

void Simulator::note_release(int cu) {
  const auto s = static_cast<std::size_t>(cu % _platform.shader_engines);
  _se_release_log[s][_se_releases[s] % kReleaseLog] = cu;
  ++_se_releases[s];
  std::uint64_t* sleepers = _se_sleepers.data() + s * _amd_words;  // their blocks may fit now
  for (std::size_t w = 0; w < _amd_words; ++w) {
    _amd_awake[w] |= sleepers[w];
    sleepers[w] = 0;
  }
}

void Simulator::amd_file(std::size_t k) {
  const AmdSlot& a = _amd_active[k];
  if (a.unfit_se == a.se && a.unfit_at == _se_releases[static_cast<std::size_t>(a.se)])
    amd_sleep(k);
  else
    _amd_awake[k / 64] |= std::uint64_t{1} << (k % 64);
}

namespace {

void take_least(BlockShape& least, const BlockShape& s) {
  least.threads = std::min(least.threads, s.threads);
  least.registers = std::min(least.registers, s.registers);
  least.shared_memory = std::min(least.shared_memory, s.shared_memory);
}

}  // namespace

void Simulator::amd_activate(const AmdSlot& slot) {
  if (_amd_active.empty()) _amd_least = slot.shape;
  take_least(_amd_least, slot.shape);
  _amd_active.push_back(slot);
  if (_amd_active.size() > _amd_words * 64) {  // one more word per set: lay them out again
    ++_amd_words;
    amd_refile();
  } else {
    amd_file(_amd_active.size() - 1);
  }
}

void Simulator::amd_refile() {
  _amd_awake.assign(_amd_words, 0);
  _se_sleepers.assign(static_cast<std::size_t>(_platform.shader_engines) * _amd_words, 0);
  for (std::size_t k = 0; k < _amd_active.size(); ++k) amd_file(k);
  if (!_amd_active.empty()) _amd_least = _amd_active.front().shape;
  for (const AmdSlot& a : _amd_active) take_least(_amd_least, a.shape);
}

namespace {

constexpr int kWavefront = 64;  // threads per GCN wavefront (Dissertation §2: Radeon VII)
constexpr int kSimds = 4;       // SIMDs per GCN CU: a block's wavefronts end in up to 4 steps

int wave_steps(const BlockShape& s) { return std::min((s.threads + kWavefront - 1) / kWavefront, kSimds); }

// The threads and registers step `step` (of `steps`, not the last) frees: its share of the
// block's whole wavefronts (the last step holds any partial one).
BlockShape wave_part(const BlockShape& s, int step, int steps) {
  const int waves = (s.threads + kWavefront - 1) / kWavefront;
  const int mine = waves / steps + (step < waves % steps ? 1 : 0);
  BlockShape part;
  part.threads = mine * kWavefront;
  part.registers =
      static_cast<int>(static_cast<std::int64_t>(s.registers) * part.threads / std::max(1, s.threads));
  return part;
}

}  // namespace

int amd_wave_steps(const BlockShape& shape) { return wave_steps(shape); }

void Simulator::schedule_wave_steps(int id, int sm, Nanos duration) {
  const int steps = wave_steps(_ops[static_cast<std::size_t>(id)].shape);
  const double spread = _perf.params().wave_release * static_cast<double>(duration.count());
  for (int k = 0; k + 1 < steps; ++k) {
    // Step k of `steps` ends (steps - 1 - k)/(steps - 1) of the spread before the block does.
    const auto early = static_cast<std::int64_t>(spread * (steps - 1 - k) / (steps - 1));
    schedule(_now + duration - Nanos{early}, EventKind::wave_end, id, sm * kSimds + k);
  }
}

bool Simulator::release_wave_step(int id, int sm, int step) {
  const BlockShape& shape = _ops[static_cast<std::size_t>(id)].shape;
  const BlockShape part = wave_part(shape, step, wave_steps(shape));
  _device.release_part(sm, part.threads, part.registers);
  note_release(sm);
  // Each resource of a fitting block is at least _amd_least's: a CU that cannot hold the least
  // holds none of the blocks.
  if (_amd_active.empty() || !_device.fits(sm, _amd_least)) return false;
  return std::any_of(_amd_active.begin(), _amd_active.end(),
                     [&](const AmdSlot& a) { return _device.fits(sm, a.shape); });
}

void Simulator::release_block(int id, int sm) {
  const BlockShape& shape = _ops[static_cast<std::size_t>(id)].shape;
  BlockShape rest = shape;
  if (_amd && _perf.params().wave_release > 0) {
    // Scheduled before the block's end at no later a time, every early step has been freed.
    const int steps = wave_steps(shape);
    for (int k = 0; k + 1 < steps; ++k) {
      const BlockShape part = wave_part(shape, k, steps);
      rest.threads -= part.threads;
      rest.registers -= part.registers;
    }
  }
  _device.release(sm, rest);
  if (_amd) note_release(sm);
}

// Serving order among the blocks that fit: fewest threads first, then the kernel served least
// recently (with wave_release: least recently served first). A CU frees a block's resources wavefront by
// wavefront, so when a large block ends a smaller waiting block fits (and is placed) before the large one
// does -- the mechanism behind MM256 starving MM1024 (Dissertation §4.2.2.3). The simulator frees a block at
// one instant, so it grants that head start by serving smaller blocks first within the instant.
void Simulator::dispatch_amd() {
  const Nanos interval{static_cast<std::int64_t>(_perf.params().block_dispatch_ns)};
  const bool lru = _perf.params().wave_release > 0;
  const auto lock_after = static_cast<std::int64_t>(_perf.params().cu_lock_threshold);
  const auto lone_cap = static_cast<std::int64_t>(_perf.params().lone_kernel_blocks);
  while (true) {
    std::size_t best = _amd_active.size();  // the slot of the kernel to serve
    int best_cu = -1;
    Nanos next_ready{-1};  // the earliest time a paced ACE may hand out a block again
    // The slots in _amd_active order. Without pacing a sleeping slot would be skipped with no
    // effect (nothing freed in its SE since its block did not fit), so only awake ones are
    // visited; with pacing every slot is, since a paced one sets next_ready.
    const std::size_t n = _amd_active.size();
    const bool all = interval.count() > 0;
    for (std::size_t word = 0; word * 64 < n; ++word) {
      std::uint64_t bits = all ? ~std::uint64_t{0} : _amd_awake[word];
      for (; bits != 0; bits &= bits - 1) {
        const std::size_t k = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
        if (k >= n) break;
        AmdSlot& a = _amd_active[k];
        if (a.ace_ready > _now) {  // its ACE handed out a block less than `interval` ago
          if (next_ready.count() < 0 || a.ace_ready < next_ready) next_ready = a.ace_ready;
          continue;
        }
        if (best < _amd_active.size()) {
          const AmdSlot& b = _amd_active[best];
          const bool better = a.shape.threads != b.shape.threads && !lru ? a.shape.threads < b.shape.threads
                                                                         : a.last_served < b.last_served;
          if (!better) continue;
        }
        if (lone_cap > 0 && _amd_active.size() == 1) {  // no other kernel waits to be handed out
          const Op& lone = _ops[static_cast<std::size_t>(a.id)];
          // ... and none has blocks resident: at its bound, this kernel's ACE waits for one of its
          // blocks to end (that end runs a dispatch pass again), or for a competitor.
          if (_kernels_running - (lone.running > 0 ? 1 : 0) == 0 && lone.running >= lone_cap) continue;
        }
        const std::uint64_t releases = _se_releases[static_cast<std::size_t>(a.se)];
        const bool unfit = a.unfit_se == a.se;
        if (unfit && a.unfit_at == releases) continue;  // nothing freed there since
        const std::vector<bool>& mask = _streams[static_cast<std::size_t>(a.stream)].mask;
        const int cu = unfit ? place_in_se_since(a.id, a.se, a.shape, mask, a.unfit_at)
                             : place_in_se(a.id, a.se, a.shape, mask);
        if (cu < 0) {  // this block waits; others may cut ahead of it
          a.unfit_se = a.se;
          a.unfit_at = releases;
          if (lock_after > 0 && a.locked_cu < 0 && ++a.unfit_tries >= lock_after) lock_cu(a, mask);
          amd_sleep(k);  // until its SE frees something
          continue;
        }
        best = k;
        best_cu = cu;
      }
    }
    if (best == _amd_active.size()) {
      if (next_ready.count() >= 0 && (_ace_wake < _now || next_ready < _ace_wake)) {
        _ace_wake = next_ready;
        schedule(next_ready, EventKind::dispatch_wake);
      }
      return;
    }
    AmdSlot& a = _amd_active[best];
    Op& op = _ops[static_cast<std::size_t>(a.id)];
    const Stream& s = _streams[static_cast<std::size_t>(op.stream)];
    const int ses = _platform.shader_engines;
    const auto placed_se = static_cast<std::size_t>(best_cu % ses);
    const std::size_t next = _cu_index[static_cast<std::size_t>(best_cu)] + 1;
    _se_cursor[placed_se] = next == _se_cus[placed_se].size() ? 0 : next;
    a.unfit_tries = 0;
    if (a.locked_cu >= 0) {  // placed (on its locked CU or another): the CU is open to all again
      _cu_lock[static_cast<std::size_t>(a.locked_cu)] = -1;
      note_release(a.locked_cu);
      a.locked_cu = -1;
    }
    start_block(a.id, best_cu);
    if (interval.count() > 0) a.ace_ready = _now + interval;
    a.last_served = ++_serve_clock;
    op.se_turn = op.se_turn + 1 == static_cast<int>(s.ses.size()) ? 0 : op.se_turn + 1;
    a.se = s.ses[static_cast<std::size_t>(op.se_turn)];
    if (op.next_block == op.blocks) {
      _amd_active.erase(_amd_active.begin() + static_cast<std::ptrdiff_t>(best));
      amd_refile();
    } else {
      amd_file(best);  // its next block goes to another SE, where it may not have fitted before
    }
  }
}

}  // namespace gpurt::sim
