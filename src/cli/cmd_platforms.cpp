// gpurt platforms [NAME] [--json]
#include <fmt/format.h>

#include "commands.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/model/platform.hpp"
#include "table.hpp"

namespace gpurt::cli {

namespace {

std::string kib(std::int64_t bytes) {
  return bytes % 1024 == 0 ? fmt::format("{} KiB", bytes / 1024) : fmt::format("{} B", bytes);
}

// The platform's performance model in one line: "ideal", or its parameters that are not 0
// (docs/simulator.md "Performance model"; `--json` shows all of them).
std::string model_summary(const PerfParams& model) {
  if (model.ideal()) return "ideal";
  std::string out;
  const Json params = to_json(model);
  for (const auto& [key, value] : params.items()) {
    if (!value.is_number() || value.get<double>() == 0) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", key, value.get<double>());
    if (key == "memory_bandwidth") out += fmt::format(" ({})", to_string(model.memory_sharing));
  }
  return out;
}

void run(const std::string& name, bool json) {
  if (name.empty()) {
    if (json) {
      Json all = Json::array();
      for (const Platform& p : platform_presets()) all.push_back(to_json(p));
      fmt::print("{}\n", all.dump(2));
      return;
    }
    Table t({"id", "name", "vendor", "SMs", "SMs/unit", "units", "threads/SM", "blocks/SM", "regs/SM",
             "smem/SM", "copy engines"},
            {false, false, false, true, true, true, true, true, true, true, true});
    for (const Platform& p : platform_presets()) {
      t.add({p.id, p.name, std::string(to_string(p.vendor)), std::to_string(p.sms),
             std::to_string(p.partition_unit), std::to_string(p.units()), std::to_string(p.max_threads),
             std::to_string(p.max_blocks), std::to_string(p.registers), kib(p.shared_memory),
             std::to_string(p.copy_engines)});
    }
    fmt::print("{}", t.render());
    return;
  }
  const Platform* p = find_platform_preset(name);
  if (!p) {
    std::string ids;
    for (const Platform& q : platform_presets()) ids += " " + q.id;
    throw InputError("gpurt platforms", "NAME", name, "unknown platform preset (presets:" + ids + ")");
  }
  if (json) {
    fmt::print("{}\n", to_json(*p).dump(2));
    return;
  }
  Table t({"field", "value"}, {false, false});
  t.add({"id", p->id});
  t.add({"name", p->name});
  t.add({"vendor", std::string(to_string(p->vendor))});
  t.add({"SMs", std::to_string(p->sms)});
  t.add({"partition unit", fmt::format("{} SM(s); {} allocatable units", p->partition_unit, p->units())});
  t.add({"threads per SM", std::to_string(p->max_threads)});
  t.add({"blocks per SM", std::to_string(p->max_blocks)});
  t.add({"registers per SM", std::to_string(p->registers)});
  t.add({"shared memory per SM", kib(p->shared_memory)});
  t.add({"threads per block", std::to_string(p->max_threads_per_block)});
  t.add({"copy engines", std::to_string(p->copy_engines)});
  if (p->shader_engines > 0) t.add({"shader engines", std::to_string(p->shader_engines)});
  t.add({"performance model", model_summary(p->model)});
  fmt::print("{}", t.render());
}

}  // namespace

void add_platforms(CLI::App& app) {
  auto* cmd = app.add_subcommand("platforms", "List the GPU presets, or print one");
  cmd->footer("Examples:\n  gpurt platforms\n  gpurt platforms rtx3060ti --json");
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("NAME", *name, "Preset id (see the list)");
  cmd->add_flag("--json", *json, "Print JSON (the platform file format)");
  cmd->callback([name, json] { run(*name, *json); });
}

}  // namespace gpurt::cli
