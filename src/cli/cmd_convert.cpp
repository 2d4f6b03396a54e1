// gpurt convert IN --to system|smlp|rtgpu|pbs|fifo [--out FILE]: reads any task format (by its
// "format") into a gpurt/system@1 system and writes the requested one (docs/report.md "System
// format"). A model that does not apply is an input error (exit 2) with the reason.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/model/system.hpp"

namespace gpurt::cli {

namespace {

struct ConvertArgs {
  std::string in;
  std::string to;
  std::string out;
};

template <class M>
Json derived_json(const Derived<M>& d, const std::string& in, std::string_view model) {
  if (!d.applies()) throw InputError(in, fmt::format("the {} model does not apply: {}", model, d.why));
  return to_json(*d.model);
}

void run(const ConvertArgs& a) {
  if (!a.out.empty()) {
    check_output_file(a.out, "--out");
    check_output_not_input(a.out, {a.in}, "--out");
  }
  const System system = load_any_system(a.in);
  Json out;
  if (a.to == "system") {
    out = to_json(system);
  } else if (a.to == "smlp") {
    out = derived_json(to_smlp(system), a.in, "SMLP");
  } else if (a.to == "rtgpu") {
    out = derived_json(to_rtgpu(system), a.in, "RTGPU");
  } else if (a.to == "pbs") {
    out = derived_json(to_pbs(system), a.in, "PBS");
  } else {
    out = derived_json(to_fifo(system), a.in, "FIFO");
  }
  // Only the PBS model (and a system file) holds a kernel's slowdown beside others and the batch
  // table: the others drop it, which changes what the tasks' times mean. Said, not silent.
  if (a.to != "system" && a.to != "pbs") {
    const std::string interference = declared_interference(system);
    if (!interference.empty())
      fmt::print(stderr,
                 "gpurt: warning: {}: {}; the {} format has no place for it, so the converted times are "
                 "the kernels' isolated ones\n",
                 printable(a.in), printable(interference), a.to);
  }
  const std::string text = out.dump(2) + "\n";
  if (a.out.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    write_file_atomically(a.out, text);
  }
}

}  // namespace

void add_convert(CLI::App& app) {
  auto a = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand(
      "convert", "Convert a task file (gpurt/system@1, smlp@1, rtgpu@1, pbs@1, fifo@1) to another format");
  cmd->add_option("IN", a->in, "Task file; its \"format\" says which")->required();
  cmd->add_option("--to", a->to, "Format to write: system, smlp, rtgpu, pbs or fifo")
      ->required()
      ->check(CLI::IsMember({"system", "smlp", "rtgpu", "pbs", "fifo"}));
  cmd->add_option("--out", a->out, "Write here (atomically) instead of stdout");
  cmd->footer(
      "Reads IN by its \"format\" and writes the requested one; where the target model does not\n"
      "apply, exit 2 with the reason and nothing written. docs/report.md \"gpurt convert\".\n"
      "Example:\n  gpurt convert examples/system/mixed.system.json --to smlp --out mixed.smlp.json");
  cmd->callback([a] { run(*a); });
}

}  // namespace gpurt::cli
