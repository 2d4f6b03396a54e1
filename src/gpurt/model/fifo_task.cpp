#include "gpurt/model/fifo_task.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/platform.hpp"
#include "gpurt/model/task_limits.hpp"

namespace gpurt {

FifoSystem parse_fifo_system(const Json& document, const std::string& file) {
  const JsonNode root(document, file);
  if (!root.is_object()) root.fail("must be a JSON object");
  expect_format(root, "gpurt/fifo@1");
  root.expect_object({"format", "time_unit", "gpu_threads", "platform", "max_block", "tasks"});
  FifoSystem s;
  s.time_unit = read_time_unit(root, TimeUnit::ms);
  const auto threads = root.find("gpu_threads");
  const auto platform = root.find("platform");
  if (threads && platform) threads->fail("give \"gpu_threads\" or \"platform\", not both");
  if (threads) {
    // At most 2^30 threads (thousands of times today's GPUs): a system of the file is a one-pool
    // platform of m threads, and platform files hold at most 2^30 threads per SM.
    s.gpu_threads = threads->as_int_in(1, std::int64_t{1} << 30);
  } else if (platform) {
    const Platform p = parse_platform(*platform);
    s.gpu_threads = std::int64_t{p.sms} * p.max_threads;
    s.max_block = p.max_threads_per_block;
  } else {
    root.fail("needs \"gpu_threads\" (m) or \"platform\"");
  }
  if (auto b = root.find("max_block")) {
    s.max_block = static_cast<int>(b->as_int_in(1, 1 << 20));
    // b_lim above m is a contradiction in the file, not something to lower quietly.
    if (s.max_block > s.gpu_threads)
      b->fail(fmt::format("must be <= gpu_threads = {} (no block is larger than the GPU)", s.gpu_threads));
  }
  if (s.max_block > s.gpu_threads) s.max_block = static_cast<int>(s.gpu_threads);  // a platform's limit

  const JsonNode tasks = root.at("tasks");
  const auto entries = tasks.items();
  if (entries.empty()) tasks.fail("must hold at least one task");
  check_task_count(tasks, entries.size());
  std::set<std::string> names;
  for (const JsonNode& e : entries) {
    e.expect_object({"name", "wcet", "period", "grid", "block"});
    FifoTask t;
    const JsonNode name = e.at("name");
    t.name = name.as_name();
    if (!names.insert(t.name).second) name.fail("is the name of an earlier task");
    t.grid = static_cast<int>(e.at("grid").as_int_in(1, 1 << 30));
    const JsonNode block = e.at("block");
    t.block = static_cast<int>(block.as_int_in(1, 1 << 20));
    if (t.block > s.max_block) {
      block.fail(fmt::format("must be <= b_lim = {} (the largest block the GPU accepts)", s.max_block));
    }
    // C_i is thread·time: bounded per thread, as a time is, and so is the kernel alone on the GPU
    // (its waves of such threads; what a system read from this file takes as the kernel's wcet).
    const JsonNode wcet = e.at("wcet");
    const std::int64_t grid_threads = std::int64_t{t.grid} * t.block;
    t.wcet = capped_workload(wcet, wcet.as_positive_time(s.time_unit, Rounding::up), grid_threads);
    const std::int64_t waves =
        ceil_div(std::int64_t{t.grid}, std::max<std::int64_t>(1, s.gpu_threads / t.block));
    __extension__ typedef unsigned __int128 Wide;
    if ((static_cast<Wide>(t.wcet.count()) * static_cast<Wide>(waves) + static_cast<Wide>(grid_threads) - 1) /
            static_cast<Wide>(grid_threads) >
        static_cast<Wide>(kMaxTaskTime.count()))
      wcet.fail(
          fmt::format("is too large: the kernel alone on the {} threads takes {} waves of its threads' "
                      "share, past 10^15 ns (the limit of times, about 11.6 days)",
                      s.gpu_threads, waves));
    t.period = capped_task_time(e.at("period"), e.at("period").as_positive_time(s.time_unit, Rounding::down));
    s.tasks.push_back(std::move(t));
  }
  return s;
}

FifoSystem load_fifo_system(const std::string& path) { return parse_fifo_system(load_json_file(path), path); }

Json to_json(const FifoSystem& s) {
  Json tasks = Json::array();
  for (const FifoTask& t : s.tasks) {
    tasks.push_back(Json{{"name", t.name},
                         {"wcet", from_nanos(t.wcet, s.time_unit)},
                         {"period", from_nanos(t.period, s.time_unit)},
                         {"grid", t.grid},
                         {"block", t.block}});
  }
  return Json{{"format", "gpurt/fifo@1"},
              {"time_unit", std::string(to_string(s.time_unit))},
              {"gpu_threads", s.gpu_threads},
              {"max_block", s.max_block},
              {"tasks", std::move(tasks)}};
}

}  // namespace gpurt
