#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "gpurt/core/error.hpp"
#include "gpurt/trace/render.hpp"

namespace gpurt {

namespace {
double us(Nanos t) { return static_cast<double>(t.count()) / 1e3; }

// Calls `fn(block record)` for every block, in file order.
template <class Fn>
void for_each_block(const Trace& trace, Fn&& fn) {
  for (const InstanceTrace& inst : trace.instances)
    for (const IterationRecord& it : inst.iterations)
      for (const KernelRecord& k : it.kernels)
        for (const BlockRecord& r : k.blocks) fn(r);
}

// Blocks resident together on an SM overlap without nesting, which a Perfetto track cannot show
// (it drops or truncates such "X" events). So each SM gets as many tracks ("slots") as it ran
// blocks at once: a block goes to the lowest slot free at its start. Returns each block's slot,
// in file order, and the most slots any SM needed.
std::pair<std::vector<int>, int> sm_slots(const Trace& trace) {
  std::vector<const BlockRecord*> blocks;
  for_each_block(trace, [&](const BlockRecord& r) { blocks.push_back(&r); });
  std::vector<std::size_t> order(blocks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const BlockRecord &x = *blocks[a], &y = *blocks[b];
    if (x.sm != y.sm) return x.sm < y.sm;
    return x.start != y.start ? x.start < y.start : a < b;
  });
  std::vector<int> slot(blocks.size(), 0);
  std::vector<Nanos> ends;  // per slot of the current SM: when its last block ends
  int most = 1;
  for (std::size_t n = 0; n < order.size(); ++n) {
    const BlockRecord& r = *blocks[order[n]];
    if (n == 0 || blocks[order[n - 1]]->sm != r.sm) ends.clear();
    std::size_t k = 0;
    while (k < ends.size() && ends[k] > r.start) ++k;
    if (k == ends.size()) ends.push_back(r.end);
    ends[k] = r.end;
    slot[order[n]] = static_cast<int>(k);
    most = std::max(most, static_cast<int>(ends.size()));
  }
  return {std::move(slot), most};
}

// Calls `emit` with every trace event, in file order.
template <class Emit>
void perfetto_events(const Trace& trace, Emit&& emit) {
  const std::string gpu = trace.simulated ? fmt::format("GPU {} (simulated by gpurt)", trace.platform)
                                          : std::string("GPU (measured)");
  // Not a structured binding: the lambdas below use it, which clang 14 (the fuzz build) refuses.
  const auto sm_slot = sm_slots(trace);
  const auto& slot = sm_slot.first;
  const auto slots = sm_slot.second;
  // Track of SM `sm`, slot `k`: tracks sort by id, so an SM's slots stay together.
  const auto tid = [slots](int sm, int k) { return static_cast<std::int64_t>(sm) * slots + k; };
  std::vector<std::vector<bool>> named(static_cast<std::size_t>(std::max(0, trace.sms)));
  for_each_block(trace, [&, n = std::size_t{0}](const BlockRecord& r) mutable {
    const auto k = static_cast<std::size_t>(slot[n++]);
    if (r.sm < 0) return;
    if (named.size() <= static_cast<std::size_t>(r.sm)) named.resize(static_cast<std::size_t>(r.sm) + 1);
    auto& used = named[static_cast<std::size_t>(r.sm)];
    if (used.size() <= k) used.resize(k + 1, false);
    used[k] = true;
  });
  emit(Json{{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", Json{{"name", gpu}}}});
  emit(Json{{"ph", "M"}, {"name", "process_name"}, {"pid", 2}, {"args", Json{{"name", "CPU instances"}}}});
  for (int sm = 0; sm < static_cast<int>(named.size()); ++sm) {
    const auto& used = named[static_cast<std::size_t>(sm)];
    for (std::size_t k = 0; k == 0 || k < used.size(); ++k) {
      if (k > 0 && !used[k]) continue;
      emit(Json{{"ph", "M"},
                {"name", "thread_name"},
                {"pid", 1},
                {"tid", tid(sm, static_cast<int>(k))},
                {"args",
                 Json{{"name", k == 0 ? fmt::format("SM {}", sm) : fmt::format("SM {} ({})", sm, k + 1)}}}});
    }
  }
  std::size_t n = 0;  // the block's index in file order
  for (std::size_t i = 0; i < trace.instances.size(); ++i) {
    const InstanceTrace& inst = trace.instances[i];
    const std::string name = inst.label.empty() ? inst.log_name : inst.label;
    emit(Json{{"ph", "M"},
              {"name", "thread_name"},
              {"pid", 2},
              {"tid", static_cast<int>(i)},
              {"args", Json{{"name", name}}}});
    for (std::size_t it_index = 0; it_index < inst.iterations.size(); ++it_index) {
      const IterationRecord& it = inst.iterations[it_index];
      emit(Json{{"ph", "X"},
                {"name", fmt::format("iteration {}", it_index)},
                {"pid", 2},
                {"tid", static_cast<int>(i)},
                {"ts", us(it.copy_in_start)},
                {"dur", us(it.copy_out_end - it.copy_in_start)}});
      for (const KernelRecord& k : it.kernels) {
        for (std::size_t b = 0; b < k.blocks.size(); ++b, ++n) {
          const BlockRecord& r = k.blocks[b];
          emit(Json{
              {"ph", "X"},
              {"name", fmt::format("{}:{}", k.name, b)},
              {"cat", name},
              {"pid", 1},
              {"tid", tid(r.sm, slot[n])},
              {"ts", us(r.start)},
              {"dur", us(r.end - r.start)},
              {"args",
               Json{
                   {"instance", name}, {"threads", k.thread_count}, {"stream", inst.stream}, {"sm", r.sm}}}});
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
