#include "gpurt/bench/plugin.hpp"

#include <algorithm>

namespace gpurt {

void PluginRegistry::add(std::string name, PluginFactory factory) {
  for (auto& [n, f] : _plugins) {
    if (n == name) {
      f = std::move(factory);
      return;
    }
  }
  _plugins.emplace_back(std::move(name), std::move(factory));
}

const PluginFactory* PluginRegistry::find(const std::string& name) const {
  for (const auto& [n, f] : _plugins) {
    if (n == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> PluginRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& p : _plugins) out.push_back(p.first);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gpurt
