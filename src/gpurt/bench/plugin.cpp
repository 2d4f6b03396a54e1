#include "gpurt/bench/plugin.hpp"

#include <dlfcn.h>

#include <algorithm>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

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

std::vector<std::string> load_plugin_library(const std::string& path, PluginRegistry& registry) {
  // dlopen searches the library path for a bare name; a plugin file is meant as a path.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void* lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) throw Error(fmt::format("plugin library {}: {}", path, dlerror()));
  using Entry = int (*)(PluginRegistry*, int);
  auto* entry = reinterpret_cast<Entry>(dlsym(lib, "gpurt_bench_plugins"));
  if (entry == nullptr) {
    dlclose(lib);
    throw Error(
        fmt::format("plugin library {}: has no gpurt_bench_plugins entry point "
                    "(extern \"C\" int gpurt_bench_plugins(gpurt::PluginRegistry*, int abi))",
                    path));
  }
  // Register into a scratch registry first, so a refused or clashing library changes nothing.
  PluginRegistry added;
  if (const int rc = entry(&added, kBenchPluginAbi); rc != 0) {
    throw Error(fmt::format("plugin library {}: refused to register (returned {}; gpurt's plugin ABI is {})",
                            path, rc, kBenchPluginAbi));
  }
  const std::vector<std::string> names = added.names();
  if (names.empty()) throw Error(fmt::format("plugin library {}: registered no plugin", path));
  for (const std::string& n : names) {
    if (registry.find(n) != nullptr)
      throw Error(fmt::format("plugin library {}: plugin \"{}\" is already registered", path, n));
  }
  for (const std::string& n : names) registry.add(n, *added.find(n));
  return names;
}

}  // namespace gpurt
