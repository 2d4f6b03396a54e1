#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/trace/render.hpp"

namespace gpurt {

namespace {
double us(Nanos t) { return static_cast<double>(t.count()) / 1e3; }

// Calls `emit` with every trace event, in file order.
template <class Emit>
void perfetto_events(const Trace& trace, Emit&& emit) {
  const std::string gpu = trace.simulated ? fmt::format("GPU {} (simulated by gpurt)", trace.platform)
                                          : std::string("GPU (measured)");
  emit(Json{{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", Json{{"name", gpu}}}});
  emit(Json{{"ph", "M"}, {"name", "process_name"}, {"pid", 2}, {"args", Json{{"name", "CPU instances"}}}});
  for (int sm = 0; sm < trace.sms; ++sm) {
    emit(Json{{"ph", "M"},
              {"name", "thread_name"},
              {"pid", 1},
              {"tid", sm},
              {"args", Json{{"name", fmt::format("SM {}", sm)}}}});
  }
  for (std::size_t i = 0; i < trace.instances.size(); ++i) {
    const InstanceTrace& inst = trace.instances[i];
    const std::string name = inst.label.empty() ? inst.log_name : inst.label;
    emit(Json{{"ph", "M"},
              {"name", "thread_name"},
              {"pid", 2},
              {"tid", static_cast<int>(i)},
              {"args", Json{{"name", name}}}});
    for (std::size_t n = 0; n < inst.iterations.size(); ++n) {
      const IterationRecord& it = inst.iterations[n];
      emit(Json{{"ph", "X"},
                {"name", fmt::format("iteration {}", n)},
                {"pid", 2},
                {"tid", static_cast<int>(i)},
                {"ts", us(it.copy_in_start)},
                {"dur", us(it.copy_out_end - it.copy_in_start)}});
      for (const KernelRecord& k : it.kernels) {
        for (std::size_t b = 0; b < k.blocks.size(); ++b) {
          const BlockRecord& r = k.blocks[b];
          emit(
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
}

}  // namespace

Json perfetto_trace(const Trace& trace) {
  Json events = Json::array();
  perfetto_events(trace, [&](Json&& e) { events.push_back(std::move(e)); });
  return Json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
}

// One event's JSON at a time: a tree of every block costs ~2 KB a block, the text ~150 bytes.
std::string perfetto_trace_text(const Trace& trace) {
  std::string out = "{\"traceEvents\":[";
  bool first = true;
  perfetto_events(trace, [&](Json&& e) {
    if (!first) out += ',';
    first = false;
    out += e.dump();
  });
  out += "],\"displayTimeUnit\":\"ns\"}";
  return out;
}

std::uint64_t drawn_blocks(const Trace& trace) {
  std::uint64_t n = 0;
  for (const InstanceTrace& inst : trace.instances)
    for (const IterationRecord& it : inst.iterations)
      for (const KernelRecord& k : it.kernels) n += k.blocks.size();
  return n;
}

void check_drawable(const Trace& trace, std::uint64_t max_blocks) {
  const std::uint64_t n = drawn_blocks(trace);
  if (n > max_blocks) {
    throw Error(fmt::format(
        "the trace has {} blocks, more than --max-drawn-blocks ({}) allows in a timeline picture or "
        "trace (about 200 bytes each, and more while drawing); raise it, or leave out --svg/--perfetto "
        "(the result files hold every block)",
        n, max_blocks));
  }
}

}  // namespace gpurt
