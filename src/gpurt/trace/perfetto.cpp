#include <fmt/format.h>

#include "gpurt/trace/render.hpp"

namespace gpurt {

namespace {
double us(Nanos t) { return static_cast<double>(t.count()) / 1e3; }
}  // namespace

Json perfetto_trace(const Trace& trace) {
  Json events = Json::array();
  const std::string gpu = trace.simulated ? fmt::format("GPU {} (simulated by gpurt)", trace.platform)
                                          : std::string("GPU (measured)");
  events.push_back(Json{{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", Json{{"name", gpu}}}});
  events.push_back(
      Json{{"ph", "M"}, {"name", "process_name"}, {"pid", 2}, {"args", Json{{"name", "CPU instances"}}}});
  for (int sm = 0; sm < trace.sms; ++sm) {
    events.push_back(Json{{"ph", "M"},
                          {"name", "thread_name"},
                          {"pid", 1},
                          {"tid", sm},
                          {"args", Json{{"name", fmt::format("SM {}", sm)}}}});
  }
  for (std::size_t i = 0; i < trace.instances.size(); ++i) {
    const InstanceTrace& inst = trace.instances[i];
    const std::string name = inst.label.empty() ? inst.log_name : inst.label;
    events.push_back(Json{{"ph", "M"},
                          {"name", "thread_name"},
                          {"pid", 2},
                          {"tid", static_cast<int>(i)},
                          {"args", Json{{"name", name}}}});
    for (std::size_t n = 0; n < inst.iterations.size(); ++n) {
      const IterationRecord& it = inst.iterations[n];
      events.push_back(Json{{"ph", "X"},
                            {"name", fmt::format("iteration {}", n)},
                            {"pid", 2},
                            {"tid", static_cast<int>(i)},
                            {"ts", us(it.copy_in_start)},
                            {"dur", us(it.copy_out_end - it.copy_in_start)}});
      for (const KernelRecord& k : it.kernels) {
        for (std::size_t b = 0; b < k.blocks.size(); ++b) {
          const BlockRecord& r = k.blocks[b];
          events.push_back(
              Json{{"ph", "X"},
                   {"name", fmt::format("{}:{}", k.name, b)},
                   {"cat", name},
                   {"pid", 1},
                   {"tid", r.sm},
                   {"ts", us(r.start)},
                   {"dur", us(r.end - r.start)},
                   {"args", Json{{"instance", name}, {"threads", k.thread_count}, {"stream", inst.stream}}}});
        }
      }
    }
  }
  return Json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
}

}  // namespace gpurt
