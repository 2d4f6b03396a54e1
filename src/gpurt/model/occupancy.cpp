#include "gpurt/model/occupancy.hpp"

#include "gpurt/core/error.hpp"

namespace gpurt {

Device::Device(const Platform& platform)
    : _platform(platform), _use(static_cast<std::size_t>(platform.sms)) {}

int RoundRobinPlacement::place(const Device& device, const BlockShape& shape,
                               const std::vector<bool>& allowed) {
  const int n = device.sms();
  int sm = _next >= n ? 0 : _next;
  for (int i = 0; i < n; ++i, sm = sm + 1 == n ? 0 : sm + 1) {
    if (!allowed.empty() && !allowed[static_cast<std::size_t>(sm)]) continue;
    if (device.fits(sm, shape)) return sm;
  }
  return -1;
}

int RoundRobinPlacement::place_among(const Device& device, const BlockShape& shape,
                                     const std::vector<bool>& allowed, const std::vector<int>& candidates) {
  const int n = device.sms();
  const int next = _next >= n ? 0 : _next;
  int best = -1, best_distance = n;
  for (int sm : candidates) {
    if (!allowed.empty() && !allowed[static_cast<std::size_t>(sm)]) continue;
    const int distance = sm >= next ? sm - next : sm + n - next;
    if (distance < best_distance && device.fits(sm, shape)) {
      best = sm;
      best_distance = distance;
    }
  }
  return best;
}

int LeastLoadedPlacement::place_among(const Device& device, const BlockShape& shape,
                                      const std::vector<bool>& allowed, const std::vector<int>& candidates) {
  int best = -1;
  for (int sm : candidates) {
    if (!allowed.empty() && !allowed[static_cast<std::size_t>(sm)]) continue;
    if (!device.fits(sm, shape)) continue;
    if (best < 0 || device.resident_threads(sm) < device.resident_threads(best) ||
        (device.resident_threads(sm) == device.resident_threads(best) && sm < best)) {
      best = sm;
    }
  }
  return best;
}

int LeastLoadedPlacement::place(const Device& device, const BlockShape& shape,
                                const std::vector<bool>& allowed) {
  int best = -1;
  for (int sm = 0; sm < device.sms(); ++sm) {
    if (!allowed.empty() && !allowed[static_cast<std::size_t>(sm)]) continue;
    if (!device.fits(sm, shape)) continue;
    if (best < 0 || device.resident_threads(sm) < device.resident_threads(best)) best = sm;
  }
  return best;
}

std::unique_ptr<PlacementPolicy> make_placement(const std::string& name) {
  if (name == "round-robin") return std::make_unique<RoundRobinPlacement>();
  if (name == "least-loaded") return std::make_unique<LeastLoadedPlacement>();
  throw Error("unknown placement policy \"" + name + "\" (round-robin, least-loaded)");
}

}  // namespace gpurt
