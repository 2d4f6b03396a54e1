#include "gpurt/trace/examiner_json.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace {

double sec(Nanos t) { return from_nanos(t, TimeUnit::s); }

Json pair(Nanos a, Nanos b) { return Json::array({sec(a), sec(b)}); }

Nanos read_seconds(const JsonNode& n) {
  // Measured files may hold absolute clock times (the epoch: about 2^60.6 ns in 2026), so any
  // finite time in [-2^61, 2^62] ns is taken; in that range the difference of any two, a
  // block's or a kernel's duration, fits 64 bits.
  const auto t = to_nanos(n.as_number(), TimeUnit::s, Rounding::nearest);
  constexpr std::int64_t lo = -(std::int64_t{1} << 61), hi = std::int64_t{1} << 62;
  if (!t || t->count() < lo || t->count() > hi)
    n.fail(
        "is not a time in seconds within [-2^61, 2^62] ns (about -73 to +146 years): the differences "
        "of the file's times must fit 64-bit nanoseconds");
  return *t;
}

// The placeholder for kernel k's array (`tag` "bt": block_times, "sm": block_smids), spliced by
// examiner_result_text (which falls back to the tree if a name happens to hold the same text).
std::string placeholder(const char* tag, std::size_t k) { return fmt::format("\x01{}{}", tag, k); }

// With `placeholders`, the two per-block arrays of each kernel are strings naming them, so the
// document stays small whatever the block count.
Json examiner_doc(const Trace& trace, const InstanceTrace& inst, bool placeholders) {
  std::size_t kernel = 0;
  Json times = Json::array();
  times.push_back(Json::object());  // the examiner's first entry is always blank
  for (const IterationRecord& it : inst.iterations) {
    times.push_back(Json{{"cpu_times", pair(it.copy_in_start, it.copy_out_end)},
                         {"copy_in_times", pair(it.copy_in_start, it.copy_in_end)},
                         {"execute_times", pair(it.execute_start, it.execute_end)},
                         {"copy_out_times", pair(it.copy_out_start, it.copy_out_end)}});
    for (const KernelRecord& k : it.kernels) {
      Json block_times = Json::array();
      Json smids = Json::array();
      if (placeholders) {
        block_times = placeholder("bt", kernel);
        smids = placeholder("sm", kernel);
      }
      ++kernel;
      for (const BlockRecord& b : placeholders ? std::vector<BlockRecord>{} : k.blocks) {
        block_times.push_back(sec(b.start));
        block_times.push_back(sec(b.end));
        smids.push_back(b.sm);
      }
      times.push_back(Json{{"kernel_name", k.name},
                           {"block_count", k.block_count},
                           {"thread_count", k.thread_count},
                           {"shared_memory", k.shared_memory},
                           {"cuda_launch_times", Json::array({sec(k.launch_before), sec(k.launch_after),
                                                              k.sync_after ? sec(*k.sync_after) : 0.0})},
                           {"block_times", std::move(block_times)},
                           {"block_smids", std::move(smids)}});
    }
  }
  Json doc{{"scenario_name", trace.scenario_name},
           {"benchmark_name", inst.benchmark_name},
           {"label", inst.label},
           {"max_resident_threads", trace.sms * trace.max_threads_per_sm},
           {"data_size", inst.data_size},
           {"release_time", sec(inst.release_time)},
           {"thread_count", inst.thread_count},
           {"block_count", inst.block_count},
           {"times", std::move(times)}};
  // gpurt's own block, for simulated and measured runs alike (`gpurt bench` writes both with
  // one schema); measured results say "simulated": false.
  if (trace.simulated || !trace.platform.empty()) {
    doc["gpurt"] = Json{{"simulated", trace.simulated},
                        {"platform", trace.platform},
                        {"sms", trace.sms},
                        {"max_threads_per_sm", trace.max_threads_per_sm},
                        {"stream", inst.stream}};
  }
  return doc;
}

}  // namespace

Json examiner_result(const Trace& trace, const InstanceTrace& inst) {
  return examiner_doc(trace, inst, false);
}

// dump(2) of examiner_result, built without the per-block JSON tree (a tree of 10^7 blocks takes
// ~1 GB; the text takes ~1/10 of it): the block arrays are written in dump(2)'s own layout,
// each number formatted by the JSON library, so the bytes are the same.
std::string examiner_result_text(const Trace& trace, const InstanceTrace& inst) {
  const std::string skeleton = examiner_doc(trace, inst, true).dump(2);
  std::vector<const KernelRecord*> kernels;
  for (const IterationRecord& it : inst.iterations)
    for (const KernelRecord& k : it.kernels) kernels.push_back(&k);
  const std::string mark = "\"\\u0001";  // how dump() writes the placeholder's first character
  std::size_t marks = 0;
  for (std::size_t f = 0; (f = skeleton.find(mark, f)) != std::string::npos; ++f) ++marks;
  if (marks != 2 * kernels.size()) return examiner_result(trace, inst).dump(2);  // a name holds \x01
  std::string out;
  std::size_t blocks = 0;
  for (const KernelRecord* k : kernels) blocks += k->blocks.size();
  out.reserve(skeleton.size() + blocks * 40);
  std::size_t at = 0;
  for (std::size_t found; (found = skeleton.find(mark, at)) != std::string::npos;) {
    const std::size_t close = skeleton.find('"', found + mark.size());
    const std::string name = skeleton.substr(found + mark.size(), close - found - mark.size());
    const bool times = name.compare(0, 2, "bt") == 0;
    const KernelRecord& k = *kernels.at(static_cast<std::size_t>(std::stoul(name.substr(2))));
    const std::size_t line = skeleton.rfind('\n', found) + 1;
    const std::string indent(skeleton.find_first_not_of(' ', line) - line, ' ');
    out.append(skeleton, at, found - at);
    if (k.blocks.empty()) {
      out += "[]";
    } else {
      out += "[";
      auto item = [&](const std::string& v) {
        out += "\n";
        out += indent;
        out += "  ";
        out += v;
        out += ",";
      };
      for (const BlockRecord& b : k.blocks) {
        if (times) {
          item(Json(sec(b.start)).dump());
          item(Json(sec(b.end)).dump());
        } else {
          item(Json(b.sm).dump());
        }
      }
      out.pop_back();  // the last comma
      out += "\n";
      out += indent;
      out += "]";
    }
    at = close + 1;
  }
  out.append(skeleton, at, std::string::npos);
  return out;
}

Trace load_examiner_results(const std::vector<std::string>& paths) {
  Trace trace;
  int max_sm = -1;
  std::int64_t resident_threads = 0;  // the device's, as the files say (0: not said)
  for (std::size_t f = 0; f < paths.size(); ++f) {
    const Json doc = load_json_file(paths[f]);
    const JsonNode root(doc, paths[f]);
    if (!root.is_object()) root.fail("must be an examiner result object");
    InstanceTrace inst;
    inst.log_name = paths[f];
    inst.stream = static_cast<int>(f);
    if (auto v = root.find("scenario_name")) trace.scenario_name = v->as_string();
    if (auto v = root.find("benchmark_name")) inst.benchmark_name = v->as_string();
    if (auto v = root.find("label")) inst.label = v->as_string();
    if (auto v = root.find("release_time")) inst.release_time = read_seconds(*v);
    if (auto v = root.find("data_size")) inst.data_size = v->as_int();
    // The instance's own counts (each kernel entry carries its own, which the pictures use):
    // checked all the same, so a file that says "abc" is refused, not drawn.
    if (auto v = root.find("thread_count")) inst.thread_count = static_cast<int>(v->as_int_in(0, 1 << 20));
    if (auto v = root.find("block_count")) inst.block_count = static_cast<int>(v->as_int_in(0, INT32_MAX));
    if (auto v = root.find("max_resident_threads")) resident_threads = v->as_int_in(1, std::int64_t{1} << 36);
    // One picture is either simulated or measured: its title says which, for every file.
    bool simulated = false;
    std::optional<JsonNode> g = root.find("gpurt");
    // gpurt's own block (examiner_doc above is its only writer): a misspelled key would silently
    // turn a simulated file into a measured one or lose its platform, so it is strict.
    if (g) g->expect_object({"simulated", "platform", "sms", "max_threads_per_sm", "stream"});
    if (g) {
      if (auto v = g->find("simulated")) {
        simulated = v->as_bool();
        if (f > 0 && simulated != trace.simulated)
          v->fail(
              fmt::format("differs from {} ({}): plot simulated and measured results apart (or with "
                          "--compare PREDICTED_DIR MEASURED_DIR)",
                          paths[0], trace.simulated ? "simulated" : "measured"));
      }
    }
    if (!g || !g->find("simulated")) {
      if (f > 0 && trace.simulated)
        root.fail(fmt::format(
            "is a measured result (no gpurt.simulated) but {} is simulated: plot simulated and measured "
            "results apart (or with --compare PREDICTED_DIR MEASURED_DIR)",
            paths[0]));
    }
    trace.simulated = simulated;
    if (g) {
      if (auto v = g->find("platform")) trace.platform = v->as_string();
      if (auto v = g->find("sms"))
        trace.recorded_sms = trace.sms = static_cast<int>(v->as_int_in(1, 1 << 16));
      if (auto v = g->find("max_threads_per_sm"))
        trace.max_threads_per_sm = static_cast<int>(v->as_int_in(1, 1 << 20));
      if (auto v = g->find("stream")) inst.stream = static_cast<int>(v->as_int_in(0, 1 << 20));
    }
    for (const JsonNode& entry : root.at("times").items()) {
      if (!entry.is_object()) entry.fail("must be an object");
      if (entry.has("cpu_times") || inst.iterations.empty()) {
        if (entry.has("cpu_times") || entry.has("block_times")) {
          inst.iterations.emplace_back();
          inst.iterations.back().has_execute = entry.has("execute_times");
        }
      }
      if (entry.has("cpu_times")) {
        IterationRecord& it = inst.iterations.back();
        auto span = [&](std::string_view key, Nanos& a, Nanos& b) {
          if (auto v = entry.find(key)) {
            const auto xs = v->items();
            if (xs.size() != 2) v->fail("must be [start, end]");
            a = read_seconds(xs[0]);
            b = read_seconds(xs[1]);
            if (b < a) xs[1].fail("ends before it starts");
          }
        };
        Nanos s{0}, e{0};
        span("cpu_times", s, e);
        span("copy_in_times", it.copy_in_start, it.copy_in_end);
        span("execute_times", it.execute_start, it.execute_end);
        span("copy_out_times", it.copy_out_start, it.copy_out_end);
      }
      if (!entry.has("block_times")) continue;
      KernelRecord k;
      if (auto v = entry.find("kernel_name")) k.name = v->as_string();
      // A block's height in the picture is its share of the SM's threads: required, and at least
      // 1 where blocks were recorded (0 for a library kernel whose blocks nothing records, as
      // gpurt bench writes for cufft).
      const JsonNode threads = entry.at("thread_count");
      k.thread_count = static_cast<int>(threads.as_int_in(0, 1 << 20));
      if (k.thread_count == 0 && entry.has("block_times") && !entry.at("block_times").items().empty())
        threads.fail("must be >= 1 for a kernel with recorded blocks");
      if (auto v = entry.find("block_count")) k.block_count = static_cast<int>(v->as_int_in(0, INT32_MAX));
      if (auto v = entry.find("shared_memory")) k.shared_memory = v->as_int();
      if (auto v = entry.find("cuda_launch_times")) {
        const auto xs = v->items();
        if (xs.size() != 3) v->fail("must hold 3 times");
        k.launch_before = read_seconds(xs[0]);
        k.launch_after = read_seconds(xs[1]);
        if (k.launch_after < k.launch_before) xs[1].fail("(the launch call's return) is before its start");
        if (xs[2].as_number() != 0.0) {  // 0: no synchronisation was recorded
          k.sync_after = read_seconds(xs[2]);
          if (k.sync_after < k.launch_after)
            xs[2].fail("(the synchronisation's return) is before the launch returned");
        }
      }
      const JsonNode bt = entry.at("block_times");
      const auto times = bt.items();
      const auto smids = entry.at("block_smids").items();
      if (times.size() % 2 != 0) bt.fail("must hold start/end pairs");
      if (smids.size() * 2 != times.size()) entry.at("block_smids").fail("must hold one SM id per block");
      if (entry.has("block_count") && static_cast<std::size_t>(k.block_count) != smids.size())
        entry.at("block_count").fail(fmt::format("but block_times holds {} block(s)", smids.size()));
      for (std::size_t b = 0; b < smids.size(); ++b) {
        BlockRecord r{read_seconds(times[2 * b]), read_seconds(times[2 * b + 1]),
                      static_cast<int>(smids[b].as_int_in(0, 1 << 16))};
        if (r.end < r.start) times[2 * b + 1].fail("block ends before it starts");
        max_sm = std::max(max_sm, r.sm);
        k.blocks.push_back(r);
      }
      inst.iterations.back().kernels.push_back(std::move(k));
    }
    trace.instances.push_back(std::move(inst));
  }
  trace.sms = std::max(trace.sms, max_sm + 1);
  if (trace.max_threads_per_sm == 0 && resident_threads > 0 && trace.sms > 0) {
    // The device's resident threads over the SMs seen (at least): an SM's capacity, or more.
    // Files that record no block see no SM (fuzz_results found the division by zero).
    trace.max_threads_per_sm = static_cast<int>(
        std::min<std::int64_t>(std::max<std::int64_t>(1, resident_threads / trace.sms), 1 << 20));
  }
  if (trace.max_threads_per_sm == 0) {
    // Files that do not say: the largest block seen twice over as a lane scale.
    int largest = 1;
    for (const auto& inst : trace.instances)
      for (const auto& it : inst.iterations)
        for (const auto& k : it.kernels) largest = std::max(largest, k.thread_count);
    trace.max_threads_per_sm = 2 * largest;
  }
  return trace;
}

}  // namespace gpurt
