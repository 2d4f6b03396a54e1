#include "gpurt/model/platform.hpp"

#include <utility>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

std::string_view to_string(Vendor vendor) { return vendor == Vendor::amd ? "amd" : "nvidia"; }

namespace {

constexpr std::string_view kFormat = "gpurt/platform@1";

std::string preset_list() {
  std::string out;
  for (const Platform& p : platform_presets()) out += (out.empty() ? "" : ", ") + p.id;
  return out;
}

// Reads the fields present in `node` into `p`; with `all_required`, every field must be there.
void read_fields(const JsonNode& node, Platform& p, bool all_required) {
  auto field = [&](std::string_view key) -> std::optional<JsonNode> {
    return all_required ? std::optional<JsonNode>(node.at(key)) : node.find(key);
  };
  if (auto v = node.find("id")) p.id = v->as_name();
  if (auto v = node.find("name")) p.name = v->as_label();
  if (auto v = field("vendor")) {
    const std::string s = v->as_string();
    if (s == "nvidia")
      p.vendor = Vendor::nvidia;
    else if (s == "amd")
      p.vendor = Vendor::amd;
    else
      v->fail("must be \"nvidia\" or \"amd\"");
  }
  constexpr std::int64_t big = 1 << 30;
  if (auto v = field("sms")) p.sms = static_cast<int>(v->as_int_in(1, 65536));
  if (auto v = field("max_threads")) p.max_threads = static_cast<int>(v->as_int_in(1, big));
  if (auto v = field("max_blocks")) p.max_blocks = static_cast<int>(v->as_int_in(1, big));
  if (auto v = field("registers")) p.registers = static_cast<int>(v->as_int_in(1, big));
  // Every GPU has some; 0 would make a block that asks for "all of it" (gpurt_whole_sm) ask for none.
  if (auto v = field("shared_memory")) p.shared_memory = v->as_int_in(1, std::int64_t{1} << 40);
  if (auto v = node.find("max_threads_per_block"))
    p.max_threads_per_block = static_cast<int>(v->as_int_in(1, big));
  if (auto v = node.find("partition_unit")) p.partition_unit = static_cast<int>(v->as_int_in(1, 65536));
  if (auto v = node.find("copy_engines")) p.copy_engines = static_cast<int>(v->as_int_in(0, 64));
  if (auto v = node.find("shader_engines")) p.shader_engines = static_cast<int>(v->as_int_in(0, 64));
  // A block no SM can hold is not a platform: the largest block fits within one SM. Unless the
  // file says otherwise, it is the smaller of the two (a preset's 1024 under "max_threads": 64).
  if (p.max_threads_per_block > p.max_threads) {
    if (auto v = node.find("max_threads_per_block")) {
      v->fail(fmt::format("exceeds max_threads {} (the threads of one SM)", p.max_threads));
    }
    p.max_threads_per_block = p.max_threads;
  }
  // Over a preset, a model section changes the keys it names and keeps the preset's others,
  // as the platform's own fields do.
  if (auto v = node.find("model")) p.model = parse_perf_params(*v, p.model);
}

}  // namespace

void validate(const Platform& p) {
  auto bad = [&](std::string_view what) { throw Error(fmt::format("platform \"{}\": {}", p.id, what)); };
  if (p.sms < 1) bad("sms must be >= 1");
  if (p.max_threads < 1 || p.max_blocks < 1 || p.registers < 1) bad("per-SM limits must be >= 1");
  if (p.shared_memory < 0) bad("shared_memory must be >= 0");
  if (p.max_threads_per_block < 1) bad("max_threads_per_block must be >= 1");
  if (p.partition_unit < 1 || p.partition_unit > p.sms) {
    bad(fmt::format("partition_unit {} must be in 1..sms ({})", p.partition_unit, p.sms));
  }
  if (p.shader_engines > 0 && p.sms % p.shader_engines != 0) {
    bad(fmt::format("shader_engines {} must divide sms {}", p.shader_engines, p.sms));
  }
}

Platform parse_platform(const JsonNode& node) {
  if (node.is_string()) {
    const std::string id = node.as_string();
    const Platform* preset = find_platform_preset(id);
    if (!preset) node.fail("unknown platform preset (presets: " + preset_list() + ")");
    return *preset;
  }
  node.expect_object({"format", "id", "name", "vendor", "sms", "max_threads", "max_blocks", "registers",
                      "shared_memory", "max_threads_per_block", "partition_unit", "copy_engines",
                      "shader_engines", "model", "preset"});
  if (auto f = node.find("format"); f && f->as_string() != kFormat) {
    f->fail(fmt::format("must be \"{}\"", kFormat));
  }
  Platform p;
  bool from_preset = false;
  if (auto base = node.find("preset")) {
    const Platform* preset = find_platform_preset(base->as_string());
    if (!preset) base->fail("unknown platform preset (presets: " + preset_list() + ")");
    p = *preset;
    from_preset = true;
  }
  read_fields(node, p, !from_preset);
  if (p.id.empty()) p.id = p.name.empty() ? std::string("custom") : p.name;
  if (p.partition_unit > p.sms) {
    const auto where = node.find("partition_unit") ? *node.find("partition_unit") : node;
    where.fail(fmt::format("partition_unit {} is larger than sms {}", p.partition_unit, p.sms));
  }
  if (p.shader_engines > 0 && p.sms % p.shader_engines != 0) {
    const auto where = node.find("shader_engines") ? *node.find("shader_engines") : node;
    where.fail(fmt::format("shader_engines {} must divide sms {}", p.shader_engines, p.sms));
  }
  // The AMD dispatch rules act only on the AMD dispatch path: set on another GPU they would be
  // carried and shown but change nothing, so they are refused (as `gpurt calibrate` refuses to
  // fit them there).
  if (p.vendor != Vendor::amd || p.shader_engines == 0) {
    const std::pair<const char*, double> amd_only[] = {{"wave_release", p.model.wave_release},
                                                       {"block_dispatch_ns", p.model.block_dispatch_ns},
                                                       {"cu_lock_threshold", p.model.cu_lock_threshold},
                                                       {"lone_kernel_blocks", p.model.lone_kernel_blocks}};
    for (const auto& [key, value] : amd_only) {
      if (value == 0) continue;
      const auto model = node.find("model");
      const auto where = model && model->find(key) ? *model->find(key) : model ? *model : node;
      where.fail(fmt::format("{} {} acts only on an AMD GPU with shader engines; platform \"{}\" is not one",
                             key, value, p.id));
    }
  }
  return p;
}

Json to_json(const Platform& p) {
  return Json{{"format", kFormat},
              {"id", p.id},
              {"name", p.name},
              {"vendor", std::string(to_string(p.vendor))},
              {"sms", p.sms},
              {"max_threads", p.max_threads},
              {"max_blocks", p.max_blocks},
              {"registers", p.registers},
              {"shared_memory", p.shared_memory},
              {"max_threads_per_block", p.max_threads_per_block},
              {"partition_unit", p.partition_unit},
              {"copy_engines", p.copy_engines},
              {"shader_engines", p.shader_engines},
              {"model", to_json(p.model)}};
}

}  // namespace gpurt
