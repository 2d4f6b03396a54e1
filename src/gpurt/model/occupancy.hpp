// The SMs of a GPU and where blocks go (the placement policy): the block allocator shared by the
// simulator and the PBS eligibility oracle (analysis/pbs_model).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpurt/model/platform.hpp"
#include "gpurt/model/scenario.hpp"

namespace gpurt {

/// Per-SM resources in use. A block holds its threads, one block slot, its registers and its
/// shared memory on one SM from its start to its end.
class Device {
 public:
  explicit Device(const Platform& platform);

  int sms() const noexcept { return static_cast<int>(_use.size()); }
  // Inline: the dispatchers ask this for every SM they consider (the simulator's hot path).
  // Monotone in each field of the shape (a block needing no more of anything than one that
  // fits, fits): the AMD dispatch's quick answer (Simulator::_amd_least) relies on it.
  bool fits(int sm, const BlockShape& shape) const noexcept {
    const Use& u = _use[static_cast<std::size_t>(sm)];
    return u.threads + shape.threads <= _platform.max_threads && u.blocks + 1 <= _platform.max_blocks &&
           u.registers + shape.registers <= _platform.registers &&
           u.shared + shape.shared_memory <= _platform.shared_memory;
  }
  void occupy(int sm, const BlockShape& shape) noexcept {
    Use& u = _use[static_cast<std::size_t>(sm)];
    u.threads += shape.threads;
    u.blocks += 1;
    u.registers += shape.registers;
    u.shared += shape.shared_memory;
  }
  void release(int sm, const BlockShape& shape) noexcept {
    Use& u = _use[static_cast<std::size_t>(sm)];
    u.threads -= shape.threads;
    u.blocks -= 1;
    u.registers -= shape.registers;
    u.shared -= shape.shared_memory;
  }
  /// Frees part of a resident block's threads and registers (AMD wavefronts ending early).
  void release_part(int sm, int threads, int registers) noexcept {
    Use& u = _use[static_cast<std::size_t>(sm)];
    u.threads -= threads;
    u.registers -= registers;
  }
  int resident_threads(int sm) const noexcept { return _use[static_cast<std::size_t>(sm)].threads; }
  int resident_blocks(int sm) const noexcept { return _use[static_cast<std::size_t>(sm)].blocks; }
  int resident_registers(int sm) const noexcept { return _use[static_cast<std::size_t>(sm)].registers; }
  std::int64_t resident_shared_memory(int sm) const noexcept {
    return _use[static_cast<std::size_t>(sm)].shared;
  }
  const Platform& platform() const noexcept { return _platform; }

 private:
  struct Use {  // one SM's resources in use, together in one cache line
    int threads = 0, blocks = 0, registers = 0;
    std::int64_t shared = 0;
  };
  Platform _platform;
  std::vector<Use> _use;
};

/// Chooses the SM for the next block of a kernel, or -1 when no allowed SM can hold it.
/// `allowed` is empty (all SMs) or has one flag per SM. Policies may keep state (a pointer).
class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual int place(const Device& device, const BlockShape& shape, const std::vector<bool>& allowed) = 0;
  /// The same choice when only `candidates` can possibly hold the block (every other SM is
  /// known not to): the engine's fast path while a kernel waits for space.
  virtual int place_among(const Device& device, const BlockShape& shape, const std::vector<bool>& allowed,
                          const std::vector<int>& candidates) = 0;
  /// Called after `sm` received a block chosen by place().
  virtual void placed(int sm) { (void)sm; }
};

/// NVIDIA's documented behaviour (Olmedo et al., RTAS 2020, cited by the PBS seed §2.3 and the
/// Dissertation §3.4.2.3): blocks go round-robin over the SMs, continuing after the SM that
/// received the previous block, skipping SMs that cannot hold the block. This spreads a
/// kernel's blocks evenly, and reproduces the ordering effects of Dissertation Figs. 3.15/3.16
/// and PBS Example 2.1.
class RoundRobinPlacement final : public PlacementPolicy {
 public:
  int place(const Device& device, const BlockShape& shape, const std::vector<bool>& allowed) override;
  int place_among(const Device& device, const BlockShape& shape, const std::vector<bool>& allowed,
                  const std::vector<int>& candidates) override;
  void placed(int sm) override { _next = sm + 1; }

 private:
  int _next = 0;
};

/// The SM with the fewest resident threads (lowest index on ties): an alternative for
/// what-if studies of other block schedulers.
class LeastLoadedPlacement final : public PlacementPolicy {
 public:
  int place(const Device& device, const BlockShape& shape, const std::vector<bool>& allowed) override;
  int place_among(const Device& device, const BlockShape& shape, const std::vector<bool>& allowed,
                  const std::vector<int>& candidates) override;
};

/// "round-robin" or "least-loaded"; throws gpurt::Error for another name.
std::unique_ptr<PlacementPolicy> make_placement(const std::string& name);

}  // namespace gpurt
