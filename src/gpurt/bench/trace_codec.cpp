// An instance's trace as JSON, exact to the nanosecond (integers, not the examiner's
// seconds), for the pipe from a worker process to the runner.
#include "gpurt/bench/runner.hpp"
#include "gpurt/core/json.hpp"

namespace gpurt {

std::string encode_instance(const InstanceTrace& in) {
  Json iterations = Json::array();
  for (const IterationRecord& it : in.iterations) {
    Json kernels = Json::array();
    for (const KernelRecord& k : it.kernels) {
      Json blocks = Json::array();
      for (const BlockRecord& b : k.blocks)
        blocks.push_back(Json::array({b.start.count(), b.end.count(), b.sm}));
      kernels.push_back(Json{{"name", k.name},
                             {"block_count", k.block_count},
                             {"thread_count", k.thread_count},
                             {"shared_memory", k.shared_memory},
                             {"launch", Json::array({k.launch_before.count(), k.launch_after.count()})},
                             {"sync_after", k.sync_after ? Json(k.sync_after->count()) : Json(nullptr)},
                             {"blocks", std::move(blocks)}});
    }
    iterations.push_back(Json{
        {"phases", Json::array({it.copy_in_start.count(), it.copy_in_end.count(), it.execute_start.count(),
                                it.execute_end.count(), it.copy_out_start.count(), it.copy_out_end.count()})},
        {"kernels", std::move(kernels)}});
  }
  return Json{{"benchmark_name", in.benchmark_name},
              {"label", in.label},
              {"log_name", in.log_name},
              {"release_time", in.release_time.count()},
              {"thread_count", in.thread_count},
              {"block_count", in.block_count},
              {"data_size", in.data_size},
              {"stream", in.stream},
              {"iterations", std::move(iterations)}}
      .dump();
}

InstanceTrace decode_instance(const std::string& text) {
  const Json j = parse_json(text, "<bench worker>");
  auto ns = [](const Json& v) { return Nanos{v.get<std::int64_t>()}; };
  InstanceTrace out;
  out.benchmark_name = j.at("benchmark_name").get<std::string>();
  out.label = j.at("label").get<std::string>();
  out.log_name = j.at("log_name").get<std::string>();
  out.release_time = ns(j.at("release_time"));
  out.thread_count = j.at("thread_count").get<int>();
  out.block_count = j.at("block_count").get<int>();
  out.data_size = j.at("data_size").get<std::int64_t>();
  out.stream = j.at("stream").get<int>();
  for (const Json& ji : j.at("iterations")) {
    IterationRecord it;
    const Json& ph = ji.at("phases");
    it.copy_in_start = ns(ph.at(0));
    it.copy_in_end = ns(ph.at(1));
    it.execute_start = ns(ph.at(2));
    it.execute_end = ns(ph.at(3));
    it.copy_out_start = ns(ph.at(4));
    it.copy_out_end = ns(ph.at(5));
    for (const Json& jk : ji.at("kernels")) {
      KernelRecord k;
      k.name = jk.at("name").get<std::string>();
      k.block_count = jk.at("block_count").get<int>();
      k.thread_count = jk.at("thread_count").get<int>();
      k.shared_memory = jk.at("shared_memory").get<std::int64_t>();
      k.launch_before = ns(jk.at("launch").at(0));
      k.launch_after = ns(jk.at("launch").at(1));
      if (!jk.at("sync_after").is_null()) k.sync_after = ns(jk.at("sync_after"));
      for (const Json& b : jk.at("blocks"))
        k.blocks.push_back({ns(b.at(0)), ns(b.at(1)), b.at(2).get<int>()});
      it.kernels.push_back(std::move(k));
    }
    out.iterations.push_back(std::move(it));
  }
  return out;
}

}  // namespace gpurt
