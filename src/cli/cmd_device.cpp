// gpurt device [--json]: the GPUs this machine can use, or why there are none.
#include <fmt/format.h>

#include "commands.hpp"
#include "gpurt/core/cuda_probe.hpp"
#include "gpurt/core/json.hpp"
#include "gpurt/runtime/partition.hpp"
#include "table.hpp"

namespace gpurt::cli {

namespace {

// Partition backends for device 0 (runtime/partition.hpp): name, unit size, availability.
void print_partition_backends() {
  Table t({"partition backend", "available", "SMs/unit", "units", "note"}, {false, false, true, true, false});
  for (const PartitionBackendInfo& b : partition_backends()) {
    t.add({b.name, b.available ? "yes" : "no", b.unit_sms > 0 ? std::to_string(b.unit_sms) : "-",
           b.units > 0 ? std::to_string(b.units) : "-", b.note});
  }
  fmt::print("\n{}", t.render());
}

}  // namespace

void add_device(CLI::App& app) {
  auto* cmd = app.add_subcommand("device", "List the CUDA devices visible to gpurt");
  cmd->footer("Example:\n  gpurt device --json");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([json] {
    const ProbeResult probe = probe_gpus();
    if (*json) {
      Json devices = Json::array();
      for (const DeviceInfo& d : probe.devices) {
        devices.push_back(Json{{"index", d.index},
                               {"name", d.name},
                               {"sms", d.sms},
                               {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
                               {"global_memory", d.global_memory},
                               {"max_threads", d.max_threads_per_sm},
                               {"max_blocks", d.max_blocks_per_sm},
                               {"registers", d.registers_per_sm},
                               {"shared_memory", d.shared_memory_per_sm},
                               {"max_threads_per_block", d.max_threads_per_block}});
      }
      Json backends = Json::array();
      for (const PartitionBackendInfo& b : partition_backends()) {
        backends.push_back(Json{{"name", b.name},
                                {"available", b.available},
                                {"unit_sms", b.unit_sms},
                                {"units", b.units},
                                {"note", b.note}});
      }
      fmt::print("{}\n", Json{{"built_with_cuda", probe.built_with_cuda},
                              {"reason", probe.reason},
                              {"devices", devices},
                              {"partition_backends", backends}}
                             .dump(2));
      return;
    }
    if (probe.devices.empty()) {
      fmt::print("no GPU: {}\n", probe.reason);
      print_partition_backends();
      return;
    }
    Table t({"index", "name", "cc", "SMs", "threads/SM", "blocks/SM", "regs/SM", "smem/SM", "memory"},
            {true, false, false, true, true, true, true, true, true});
    for (const DeviceInfo& d : probe.devices) {
      t.add({std::to_string(d.index), d.name, fmt::format("{}.{}", d.cc_major, d.cc_minor),
             std::to_string(d.sms), std::to_string(d.max_threads_per_sm), std::to_string(d.max_blocks_per_sm),
             std::to_string(d.registers_per_sm), fmt::format("{} KiB", d.shared_memory_per_sm / 1024),
             fmt::format("{} MiB", d.global_memory >> 20)});
    }
    fmt::print("{}", t.render());
    print_partition_backends();
  });
}

}  // namespace gpurt::cli
