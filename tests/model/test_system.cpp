// gpurt/system@1: the reader's messages, each seed's model derived from a system (with the
// numbers worked by hand in the comments), round trips through every bundled example of the four
// model formats, and the reasons a model does not apply.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "gpurt/analysis/rtgpu_lemmas.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/model/system.hpp"

using namespace gpurt;

namespace {

const std::string kDir = std::string(GPURT_SOURCE_DIR) + "/examples/";

Json valid() {
  return parse_json(R"({
    "format": "gpurt/system@1", "time_unit": "us", "platform": "rtx3060ti",
    "tasks": [
      {"name": "a", "period": 1000, "deadline": 900, "segments": [
        {"cpu": [10, 20]}, {"h2d": 5},
        {"kernel": {"blocks": 76, "threads": 256, "wcet": 100, "wcet_by_units": [400, 210]}},
        {"d2h": 5}, {"cpu": 10}]},
      {"name": "b", "period": 2000, "segments": [{"kernel": {"blocks": 4, "threads": 64, "wcet": 50}}]}
    ]})",
                    "s.json");
}

std::string error_after(const std::function<void(Json&)>& edit) {
  Json doc = valid();
  edit(doc);
  try {
    parse_system(doc, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

std::vector<std::string> examples(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(kDir + folder)) {
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(SystemFile, ReadsSegmentsInNanoseconds) {
  const System s = parse_system(valid(), "s.json");
  EXPECT_EQ(s.platform.id, "rtx3060ti");
  EXPECT_DOUBLE_EQ(s.rho, 1.1);
  EXPECT_EQ(s.virtual_sms_per_sm, 2);
  ASSERT_EQ(s.tasks.size(), 2u);
  const SystemTask& a = s.tasks[0];
  EXPECT_EQ(*a.period, Nanos{1'000'000});
  EXPECT_EQ(*a.deadline, Nanos{900'000});
  EXPECT_FALSE(s.tasks[1].deadline);
  ASSERT_EQ(a.segments.size(), 5u);
  EXPECT_EQ(a.segments[0].kind, SegmentKind::cpu);
  EXPECT_EQ(a.segments[0].time.lo, Nanos{10'000});
  EXPECT_EQ(a.segments[0].time.hi, Nanos{20'000});
  EXPECT_EQ(a.segments[1].kind, SegmentKind::h2d);
  EXPECT_EQ(a.segments[1].time.lo, Nanos{5'000});  // a single number is [x, x]
  EXPECT_EQ(a.segments[1].time.hi, Nanos{5'000});
  EXPECT_EQ(a.segments[2].kernel.wcet_by_units, (std::vector<Nanos>{Nanos{400'000}, Nanos{210'000}}));
  EXPECT_EQ(a.kernels(), 1);
  // The file form reads back to the same file form.
  EXPECT_EQ(to_json(parse_system(to_json(s), "again")), to_json(s));
}

TEST(SystemFile, RejectsBadValuesNamingFilePathAndValue) {
  const std::string seg = "s.json: tasks[0].segments[";
  const std::string kern = "s.json: tasks[1].segments[0].kernel";
  EXPECT_EQ(error_after([](Json& d) {
              d["tasks"][0]["segments"][1] = Json{{"h2d", 5}, {"cpu", 1}};
            }),
            seg + R"(1] = {"h2d":5,"cpu":1}: must hold exactly one of "cpu", "h2d", "d2h", "kernel")");
  EXPECT_EQ(error_after([](Json& d) {
              d["tasks"][0]["segments"][1] = Json{{"copy", 5}};
            }),
            seg + R"(1].copy: unknown key (did you mean "cpu"?))");
  EXPECT_EQ(error_after([](Json& d) {
              d["tasks"][0]["segments"][0]["cpu"] = Json::array({20, 10});
            }),
            seg + "0].cpu = [20,10]: lower bound must be <= upper bound");
  EXPECT_EQ(error_after([](Json& d) {
              d["tasks"][1]["segments"][0]["kernel"] = Json{{"blocks", 4}};
            }),
            kern + R"( = {"blocks":4}: needs a time: "wcet", "wcet_by_units", "work" or "workload")");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][1]["segments"][0]["kernel"]["alpha"] = 1.5; }),
            kern + R"(.alpha = 1.5: needs "work" (α inflates the RTGPU work))");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][1]["segments"][0]["kernel"]["threads"] = 2048; }),
            kern + ".threads = 2048: must be in 1..1024");
  EXPECT_EQ(error_after([](Json& d) {
              Json& l = d["tasks"][0]["segments"][2]["kernel"]["wcet_by_units"];
              l = Json::array();
              for (int i = 0; i < 20; ++i) l.push_back(1);
            }),
            seg + "2].kernel.wcet_by_units: has 20 entries but the platform has only 19 units");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["priority"] = 1; }),
            "s.json: tasks: 1 of 2 tasks have a priority: give every task one, or none");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][1]["name"] = "a"; }),
            R"(s.json: tasks[1].name = "a": is the name of an earlier task)");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["segments"] = Json::array(); }),
            "s.json: tasks[0].segments = []: must hold at least one segment");
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["perod"] = 5; }),
            R"(s.json: tasks[0].perod: unknown key (did you mean "period"?))");
  EXPECT_EQ(error_after([](Json& d) {
              d["batches"] = Json::array({Json{{"tasks", {"a", "c"}}, {"completion", 3}}});
            }),
            R"(s.json: batches[0].tasks[1] = "c": is not the name of a task in "tasks")");
  // 2·10^12 us = 2·10^15 ns, past the 10^15 ns bound on every time.
  EXPECT_EQ(error_after([](Json& d) { d["tasks"][0]["period"] = 2e12; }),
            "s.json: tasks[0].period = 2000000000000.0: is too large (times are limited to 10^15 ns, about "
            "11.6 days)");
}

TEST(SystemDerive, PbsFigure1RoundTripsAndGivesSmlpAndFifo) {
  const PbsSystem pbs = load_pbs_system(kDir + "pbs/figure1.json");
  const System s = from_pbs(pbs);
  const auto back = to_pbs(s);
  ASSERT_TRUE(back.applies()) << back.why;
  EXPECT_EQ(to_json(*back.model), to_json(pbs));
  // SMLP: one block of 64 threads runs in one wave on any number of units, so L(i,k) = C for
  // every k = 1..66 (h100: 132 SMs in pairs).
  const auto smlp = to_smlp(s);
  ASSERT_TRUE(smlp.applies()) << smlp.why;
  ASSERT_EQ(smlp.model->tasks[1].wcet_by_units.size(), 66u);
  EXPECT_EQ(smlp.model->tasks[1].wcet_by_units.front(), Nanos{3'000'000});
  EXPECT_EQ(smlp.model->tasks[1].wcet_by_units.back(), Nanos{3'000'000});
  EXPECT_EQ(*smlp.model->timing[1].period, Nanos{5'000'000});
  // FIFO: m = 132·2048 = 270336 threads; C_i = g·b·C = 1·64·1 ms = 64 ms for t1.
  const auto fifo = to_fifo(s);
  ASSERT_TRUE(fifo.applies()) << fifo.why;
  EXPECT_EQ(fifo.model->gpu_threads, 270336);
  EXPECT_EQ(fifo.model->max_block, 1024);
  EXPECT_EQ(fifo.model->tasks[0].wcet, Nanos{64'000'000});
  EXPECT_EQ(fifo.model->tasks[2].wcet, Nanos{192'000'000});
  // RTGPU: no CPU work before the kernel.
  EXPECT_EQ(
      to_rtgpu(s).why,
      "RTGPU needs CPU work before every kernel (and between two); task \"t1\" segment 0 has none before it");
}

TEST(SystemDerive, RtgpuWorkGivesSmlpWcetByLemma51) {
  const RtgpuSystem rtgpu = load_rtgpu_system(kDir + "rtgpu/two-tasks.json");
  const System s = from_rtgpu(rtgpu);
  const auto smlp = to_smlp(s);
  ASSERT_TRUE(smlp.applies()) << smlp.why;
  // Task A: CPU 1 + copy 1 before the kernel, copy 1 + CPU 1 after it (ms).
  EXPECT_EQ(smlp.model->timing[0].cpu_before, Nanos{2'000'000});
  EXPECT_EQ(smlp.model->timing[0].cpu_after, Nanos{2'000'000});
  // GW = 4 ms on one virtual SM, GL = 0, α = 1; k units of 1 SM give 2k virtual SMs:
  // L(A,1) = 4/2 = 2 ms, L(A,2) = 4/4 = 1 ms; the same as the analysis layer's Lemma 5.1.
  EXPECT_EQ(smlp.model->tasks[0].wcet_by_units, (std::vector<Nanos>{Nanos{2'000'000}, Nanos{1'000'000}}));
  for (int k = 1; k <= 2; ++k) {
    EXPECT_EQ(smlp.model->tasks[0].wcet_by_units[static_cast<std::size_t>(k - 1)],
              gpu_response_bounds(rtgpu.tasks[0].gpu[0], 2 * k).hi);
  }
  EXPECT_EQ(to_pbs(s).why,
            "PBS takes kernels without CPU or copy work; task \"A\" segment 0 is cpu work of up to 1 ms");
  EXPECT_EQ(to_fifo(s).why,
            "the FIFO model takes kernels without CPU or copy work; task \"A\" segment 0 is cpu work of up "
            "to 1 ms");  // in the file's unit
}

TEST(SystemDerive, SmlpWithoutWorkDoesNotGiveRtgpu) {
  const System s = from_smlp(load_smlp_system(kDir + "system/cufft-periodic.json"));
  EXPECT_EQ(to_rtgpu(s).why,
            "RTGPU needs each kernel's \"work\" (GW on one virtual SM, RTGPU §4.2); task \"fft-2^22\" "
            "segment 1 (kernel) "
            "has none, and gpurt does not derive it from measured WCETs");
  const System no_period = from_smlp(load_smlp_system(kDir + "smlp/cufft-rtx3060ti.json"));
  EXPECT_EQ(to_rtgpu(no_period).why, "RTGPU needs a period; task \"fft-2^24\" has none");
  EXPECT_EQ(to_pbs(no_period).why, "PBS needs a period; task \"fft-2^24\" has none");
}

TEST(SystemDerive, MixedExampleGivesSmlpAndRtgpu) {
  const System s = load_system(kDir + "system/mixed.system.json");
  const auto smlp = to_smlp(s);
  ASSERT_TRUE(smlp.applies()) << smlp.why;
  // detect: CPU 500 + h2d 120 before, d2h 60 + CPU 300 after (worst cases, us).
  EXPECT_EQ(smlp.model->timing[0].cpu_before, Nanos{620'000});
  EXPECT_EQ(smlp.model->timing[0].cpu_after, Nanos{360'000});
  const auto rtgpu = to_rtgpu(s);
  ASSERT_TRUE(rtgpu.applies()) << rtgpu.why;
  const RtgpuTask& track = rtgpu.model->tasks[1];
  EXPECT_EQ(track.cpu.size(), 2u);
  EXPECT_EQ(track.copy[0].hi, Nanos{200'000});
  EXPECT_EQ(track.gpu[0].work.hi, Nanos{24'000'000});
  EXPECT_DOUBLE_EQ(track.gpu[0].alpha, 1.1);
  // Deadline-monotonic without priorities: detect (D 8 ms) 1, track (20 ms) 2, log (50 ms) 3.
  EXPECT_EQ(rtgpu.model->tasks[0].priority, 1);
  EXPECT_EQ(rtgpu.model->tasks[2].priority, 3);
  EXPECT_EQ(
      to_pbs(s).why,
      "PBS takes kernels without CPU or copy work; task \"detect\" segment 0 is cpu work of up to 500 us");
  EXPECT_EQ(
      to_fifo(s).why,
      "the FIFO model takes kernels without CPU or copy work; task \"detect\" segment 0 is cpu work of up to "
      "500 us");
}

TEST(SystemDerive, EveryBundledModelFileRoundTrips) {
  int files = 0;
  for (const std::string& f : examples("smlp")) {
    const SmlpSystem m = load_smlp_system(f);
    const auto back = to_smlp(parse_system(to_json(from_smlp(m)), f));
    ASSERT_TRUE(back.applies()) << f << ": " << back.why;
    EXPECT_EQ(to_json(*back.model), to_json(m)) << f;
    ++files;
  }
  for (const std::string& f : examples("rtgpu")) {
    const RtgpuSystem m = load_rtgpu_system(f);
    const auto back = to_rtgpu(parse_system(to_json(from_rtgpu(m)), f));
    ASSERT_TRUE(back.applies()) << f << ": " << back.why;
    EXPECT_EQ(to_json(*back.model), to_json(m)) << f;
    ++files;
  }
  for (const std::string& f : examples("pbs")) {
    const PbsSystem m = load_pbs_system(f);
    const auto back = to_pbs(parse_system(to_json(from_pbs(m)), f));
    ASSERT_TRUE(back.applies()) << f << ": " << back.why;
    EXPECT_EQ(to_json(*back.model), to_json(m)) << f;
    ++files;
  }
  for (const std::string& f : examples("fifo")) {
    const FifoSystem m = load_fifo_system(f);
    const auto back = to_fifo(parse_system(to_json(from_fifo(m)), f));
    ASSERT_TRUE(back.applies()) << f << ": " << back.why;
    EXPECT_EQ(to_json(*back.model), to_json(m)) << f;
    ++files;
  }
  // simulate-system's smlp@1 files in examples/system round-trip too.
  for (const std::string& f : examples("system")) {
    const Json doc = load_json_file(f);
    if (doc.at("format") != "gpurt/smlp@1") continue;
    const SmlpSystem m = parse_smlp_system(doc, f);
    const auto back = to_smlp(from_smlp(m));
    ASSERT_TRUE(back.applies()) << f << ": " << back.why;
    EXPECT_EQ(to_json(*back.model), to_json(m)) << f;
    ++files;
  }
  EXPECT_GE(files, 11);
}

TEST(SystemDerive, FifoWorkloadIsKeptAndWcetIsTheKernelAloneInWaves) {
  const FifoSystem m = load_fifo_system(kDir + "fifo/example2.json");
  const System s = from_fifo(m);
  EXPECT_EQ(s.platform.max_threads, 4096);
  // t1: C = 3891.2 ms over 1 block of 1024 threads: 3.8 ms per thread, one wave.
  EXPECT_EQ(*s.tasks[0].segments[0].kernel.wcet, Nanos{3'800'000});
  EXPECT_EQ(*s.tasks[0].segments[0].kernel.workload, Nanos{3'891'200'000});
  // Five 1-thread blocks of C = 10 ms on m = 4 threads: blocks of 2 ms in 2 waves, so the kernel
  // alone takes 4 ms (not one block's 2 ms); every model derived from the system sees 4 ms.
  FifoSystem w;
  w.gpu_threads = 4;
  w.max_block = 4;
  w.tasks.push_back(FifoTask{"a", Nanos{10'000'000}, Nanos{3'000'000}, 5, 1});
  const System ws = from_fifo(w);
  EXPECT_EQ(*ws.tasks[0].segments[0].kernel.wcet, Nanos{4'000'000});
  EXPECT_EQ(kernel_whole_gpu_wcet(ws, ws.tasks[0].segments[0].kernel).model, Nanos{4'000'000});
  const auto smlp = to_smlp(ws);
  ASSERT_TRUE(smlp.applies()) << smlp.why;
  EXPECT_EQ(smlp.model->tasks[0].wcet_by_units, (std::vector<Nanos>{Nanos{4'000'000}}));
  // Without the wcet, the workload gives the same: the block time times the waves.
  System only = ws;
  only.tasks[0].segments[0].kernel.wcet.reset();
  EXPECT_EQ(kernel_whole_gpu_wcet(only, only.tasks[0].segments[0].kernel).model, Nanos{4'000'000});
  // 1-thread blocks are not limited to 1024 per SM: 4096 of them fit on fifo-4096 at once.
  w.gpu_threads = 4096;
  w.tasks[0] = FifoTask{"a", Nanos{4096}, Nanos{3'000'000}, 4096, 1};
  EXPECT_EQ(*from_fifo(w).tasks[0].segments[0].kernel.wcet, Nanos{1});
  // Deadline below the period: FIFO Theorem 1 does not apply.
  System d = s;
  d.tasks[1].deadline = Nanos{10'000'000};
  EXPECT_EQ(
      to_fifo(d).why,
      "the FIFO model's Theorem 1 assumes implicit deadlines (D = T); task \"t2\" has D = 10 ms, T = 16 ms");
}

TEST(SystemDerive, WavesGiveWcetByUnitsFromWcetAndShape) {
  // Task b of valid(): 4 blocks of 64 threads, C = 50 us: one wave on any number of units.
  // A 152-block grid of 1024 threads on rtx3060ti (1 block of 1024 per SM at 1536 threads):
  // waves(k) = ceil(152 / 2k), waves(all 38 SMs) = 4, so L(i,k) = C · ceil(76/k) / 4.
  System s = parse_system(valid(), "s.json");
  SystemKernel k;
  k.blocks = 152;
  k.threads = 1024;
  k.wcet = Nanos{400'000};
  const auto l = kernel_wcet_by_units(s, k);
  ASSERT_TRUE(l.applies()) << l.why;
  ASSERT_EQ(l.model->size(), 19u);
  EXPECT_EQ((*l.model)[0], Nanos{7'600'000});  // 76 waves · 100 us
  EXPECT_EQ((*l.model)[1], Nanos{3'800'000});  // 38 waves
  EXPECT_EQ((*l.model)[18], Nanos{400'000});   // 4 waves: C
  k.threads = 0;
  EXPECT_EQ(
      kernel_wcet_by_units(s, k).why,
      "no \"wcet_by_units\" or \"work\", and no \"blocks\" and \"threads\" to derive L(i,k) from \"wcet\"");
}

TEST(SystemFile, AnyFormatIsReadByItsFormat) {
  EXPECT_EQ(load_any_system(kDir + "pbs/figure1.json").tasks.size(), 3u);
  EXPECT_EQ(load_any_system(kDir + "system/mixed.system.json").tasks.size(), 3u);
  try {
    parse_any_system(parse_json(R"({"format": "gpurt/platform@1"})", "p.json"), "p.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "p.json: format = \"gpurt/platform@1\": is not a task format (gpurt/system@1, gpurt/smlp@1, "
              "gpurt/rtgpu@1, gpurt/pbs@1, gpurt/fifo@1)");
  }
}

// The fifo@1 and rtgpu@1 readers bound times and task counts as smlp@1 and system@1 do
// (model/task_limits.hpp): what they load, `gpurt convert --to system` can always write.
TEST(TaskFileLimits, FifoTimesAndRtgpuTaskCountsAreBounded) {
  const auto error_of = [](const std::function<void()>& parse) -> std::string {
    try {
      parse();
    } catch (const InputError& e) {
      return e.what();
    }
    return "<no error>";
  };
  Json fifo = load_json_file(kDir + "fifo/example2.json");
  fifo["tasks"][0]["period"] = 1e30;
  EXPECT_NE(error_of([&] { (void)parse_fifo_system(fifo, "f.json"); }).find("f.json: tasks[0].period"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)parse_fifo_system(fifo, "f.json"); }).find("is too large"),
            std::string::npos);
  // The example's first task `count` times (distinct names and priorities).
  const auto copies = [](const std::string& file, int count) {
    Json doc = load_json_file(kDir + file);
    const Json one = doc["tasks"][0];
    doc["tasks"] = Json::array();
    for (int i = 0; i < count; ++i) {
      doc["tasks"].push_back(one);
      doc["tasks"].back()["name"] = "t" + std::to_string(i);
      if (one.contains("priority")) doc["tasks"].back()["priority"] = i + 1;
    }
    return doc;
  };
  EXPECT_EQ(error_of([&] { (void)parse_rtgpu_system(copies("rtgpu/two-tasks.json", 1025), "r.json"); }),
            "r.json: tasks: holds more than 1024 tasks");
  EXPECT_EQ(error_of([&] { (void)parse_fifo_system(copies("fifo/example2.json", 1025), "f.json"); }),
            "f.json: tasks: holds more than 1024 tasks");
  // The bound itself is allowed.
  EXPECT_EQ(error_of([&] { (void)parse_rtgpu_system(copies("rtgpu/two-tasks.json", 1024), "r.json"); }),
            "<no error>");
  EXPECT_EQ(error_of([&] { (void)parse_fifo_system(copies("fifo/example2.json", 1024), "f.json"); }),
            "<no error>");
}
