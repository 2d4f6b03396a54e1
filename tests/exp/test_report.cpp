// gpurt report (issue 18): bounds equal the analyses' hand-computed values, simulated maxima stay
// under them, a model that does not apply carries its reason, a violation is reported, and the
// JSON has the documented shape.
#include <gtest/gtest.h>

#include <chrono>

#include <fmt/format.h>

#include "gpurt/analysis/smlp.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/exp/report.hpp"
#include "gpurt/exp/report_html.hpp"
#include "gpurt/model/system.hpp"
#include "report_two_tasks.hpp"

namespace gpurt {
namespace {

using namespace std::chrono_literals;

using test::kTwoTasks;  // report_two_tasks.hpp: its bounds are worked there

System two_tasks() { return parse_system(Json::parse(kTwoTasks), "two.json"); }

const ReportAnalysis& analysis(const Report& r, const std::string& name) {
  for (const ReportAnalysis& a : r.analyses)
    if (a.name == name) return a;
  throw std::runtime_error("no analysis " + name);
}

const ReportSimulation& simulation(const Report& r, const std::string& policy) {
  for (const ReportSimulation& s : r.simulated)
    if (s.policy == policy) return s;
  throw std::runtime_error("no simulation " + policy);
}

TEST(Report, SmlpBoundsAreLemma2PlusCpuByHand) {
  const Report r = make_report(two_tasks());
  const ReportAnalysis& smlp = analysis(r, "smlp");
  ASSERT_TRUE(smlp.applicable);
  ASSERT_EQ(smlp.tasks.size(), 2u);
  EXPECT_EQ(smlp.tasks[0].bound, Nanos{125'527});
  EXPECT_EQ(smlp.tasks[1].bound, Nanos{205'264});
  EXPECT_EQ(smlp.schedulable, true);
  EXPECT_EQ(smlp.policy, "smlp");
}

TEST(Report, DefaultHorizonIsTheHyperperiod) {
  EXPECT_EQ(default_report_horizon(two_tasks()), Nanos{2'000'000});
  EXPECT_EQ(make_report(two_tasks()).horizon, Nanos{2'000'000});
}

// The default horizon takes at least one longest period; with periods of 1 us and 10^9 us that
// alone would release 10^9 jobs of the fast task. It is shortened like a given one, to
// max_jobs_per_task (2000) periods of the fastest task: 2 ms.
TEST(Report, TheDefaultHorizonIsShortenedToBoundTheJobsToo) {
  Json doc = Json::parse(kTwoTasks);
  doc["tasks"][0]["period"] = 1;
  doc["tasks"][0]["deadline"] = 1;
  doc["tasks"][0]["segments"] = Json::parse(R"([{"kernel": {"wcet_by_units": [0.5]}}])");
  doc["tasks"][1]["period"] = 1e9;
  doc["tasks"][1]["deadline"] = 1e9;
  const System s = parse_system(doc, "far.json");
  EXPECT_EQ(default_report_horizon(s), Nanos{1'000'000'000'000});  // one longest period
  // The horizon alone (make_report would simulate a billion jobs if the rule broke).
  ASSERT_EQ(report_horizon(s, {}), (std::pair<Nanos, bool>{Nanos{2'000'000}, true}));
  EXPECT_EQ(report_horizon(two_tasks(), {}), (std::pair<Nanos, bool>{Nanos{2'000'000}, false}));
  ReportOptions o;
  o.policies = {"be"};
  const Report r = make_report(s, o);
  EXPECT_EQ(r.horizon, Nanos{2'000'000});
  EXPECT_TRUE(r.horizon_capped);
  ASSERT_EQ(r.simulated.size(), 1u);
}

// RTGPU's virtual SMs are persistent blocks, virtual_sms_per_sm of them on every SM: a platform
// that holds fewer blocks per SM gets no RTGPU bound (it used to be "schedulable" while the
// simulation of the same policy was refused).
TEST(Report, RtgpuDoesNotApplyWhereAnSmHoldsFewerBlocksThanVirtualSms) {
  Json doc = Json::parse(kTwoTasks);
  doc["platform"] = Json::parse(R"({"preset": "rtx3060ti", "max_blocks": 1})");
  const Derived<RtgpuSystem> d = to_rtgpu(parse_system(doc, "one-block.json"));
  EXPECT_FALSE(d.applies());
  EXPECT_EQ(d.why, "RTGPU runs 2 persistent blocks per SM (virtual_sms_per_sm) and rtx3060ti holds 1");
}

// RTGPU's iterations stop at the deadline: a task whose R1 and R2 pass it has no bound (the value
// shown was where the search stopped, 1450 us, while the simulation's jobs queued to 5500 us and
// the consistency check called it a violation). One job takes 100 + 5000/4 + 100 = 1450 us > T.
TEST(Report, RtgpuClaimsNoBoundPastTheDeadline) {
  const System s = parse_system(Json::parse(R"({"format": "gpurt/system@1", "time_unit": "us",
      "platform": "jetson-tx1", "tasks": [{"name": "a", "period": 1000, "segments": [{"cpu": 100},
      {"kernel": {"work": [5000, 5000]}}, {"cpu": 100}]}]})"),
                                "over.json");
  ReportOptions o;
  o.horizon = Nanos{10'000'000};
  const Report r = make_report(s, o);
  const ReportAnalysis& rtgpu = analysis(r, "rtgpu");
  ASSERT_TRUE(rtgpu.applicable) << rtgpu.why;
  EXPECT_EQ(rtgpu.schedulable, std::optional<bool>(false));
  EXPECT_FALSE(rtgpu.tasks[0].bound.has_value());
  EXPECT_NE(rtgpu.tasks[0].note.find("exceeds the deadline"), std::string::npos) << rtgpu.tasks[0].note;
  EXPECT_GT(simulation(r, "rtgpu-federated").tasks[0].max_response, Nanos{1'450'000});
  EXPECT_TRUE(r.violations.empty());
}

TEST(Report, SimulatedMaximaStayUnderTheirBounds) {
  const Report r = make_report(two_tasks());
  const ReportSimulation& smlp = simulation(r, "smlp");
  ASSERT_TRUE(smlp.ran) << smlp.why;
  ASSERT_EQ(smlp.tasks.size(), 2u);
  // Two jobs of a and one of b in [0, 2000 us); a's first job waits for nothing (19 free units).
  EXPECT_EQ(smlp.tasks[0].jobs, 2);
  EXPECT_EQ(smlp.tasks[1].jobs, 1);
  EXPECT_LE(smlp.tasks[0].max_response, Nanos{125'527});
  EXPECT_LE(smlp.tasks[1].max_response, Nanos{205'264});
  EXPECT_GT(smlp.tasks[0].max_response, Nanos{0});
  EXPECT_TRUE(r.violations.empty());
  // smlp, kx and federated bounds of both tasks were compared with their simulations.
  EXPECT_EQ(r.checked, 6);
  ASSERT_TRUE(smlp.gpu_utilisation);
  EXPECT_GT(*smlp.gpu_utilisation, 0);
  EXPECT_LT(*smlp.gpu_utilisation, 1);
}

TEST(Report, ModelsThatDoNotApplySayWhy) {
  const System s = two_tasks();
  const Report r = make_report(s);
  for (const char* name : {"rtgpu", "self-suspension", "stgm"}) {
    const ReportAnalysis& a = analysis(r, name);
    EXPECT_FALSE(a.applicable) << name;
    EXPECT_EQ(a.why, to_rtgpu(s).why) << name;
    EXPECT_FALSE(a.why.empty());
  }
  EXPECT_FALSE(analysis(r, "gpusched").applicable);
  EXPECT_EQ(analysis(r, "gpusched").why, to_pbs(s).why);
  EXPECT_FALSE(simulation(r, "pbs-table").ran);
  EXPECT_EQ(simulation(r, "pbs-table").why, to_pbs(s).why);
  // No bound in gpurt for SMLP served by priority: said so, and still simulated.
  EXPECT_FALSE(analysis(r, "smlp-prio").applicable);
  EXPECT_NE(analysis(r, "smlp-prio").why.find("no response-time bound"), std::string::npos);
  EXPECT_TRUE(simulation(r, "smlp-prio").ran);
}

// k = 2 (the default): slots of 10 and 9 units. a holds L(a, 2) = 50 us in either slot, b holds
// L(b, 1) = 200 us. a: 10 + ceil(200 / 2) + 50 + 5 = 165 us; b: ceil(50 / 2) + 200 = 225 us.
TEST(Report, KExclusionBoundsByHand) {
  const Report r = make_report(two_tasks());
  const ReportAnalysis& kx = analysis(r, "kx");
  ASSERT_TRUE(kx.applicable);
  ASSERT_EQ(kx.tasks.size(), 2u);
  EXPECT_EQ(kx.tasks[0].bound, Nanos{165'000});
  EXPECT_EQ(kx.tasks[1].bound, Nanos{225'000});
  EXPECT_EQ(kx.schedulable, true);
  const ReportSimulation& sim = simulation(r, "kx");
  ASSERT_TRUE(sim.ran);
  EXPECT_LE(sim.tasks[0].max_response, Nanos{165'000});
  EXPECT_LE(sim.tasks[1].max_response, Nanos{225'000});
}

TEST(Report, RecommendsTheGuaranteedPolicyWithTheMostGpuToSpare) {
  const Report r = make_report(two_tasks());
  std::vector<std::string> guaranteed;
  for (const ReportCandidate& c : r.guaranteed) guaranteed.push_back(c.policy);
  EXPECT_EQ(guaranteed, (std::vector<std::string>{"smlp", "kx", "federated"}));
  ASSERT_TRUE(r.best);
  // SMLP's bound assumes its lock over all 19 units: nothing spare. Federated dedicates the
  // smallest allowed size meeting each deadline: 1 unit each (100 us <= 1000 - 15 us; 200 us <=
  // 2000 us), so 17 of 19 units stay free for other work.
  EXPECT_EQ(analysis(r, "federated").allocation, (std::vector<int>{1, 1}));
  EXPECT_DOUBLE_EQ(r.guaranteed[0].spare, 0);
  EXPECT_DOUBLE_EQ(r.guaranteed[1].spare, 0);  // k-exclusion's slots cover all 19 units
  EXPECT_DOUBLE_EQ(r.guaranteed[2].spare, 17.0 / 19);
  EXPECT_EQ(r.best->policy, "federated");
  EXPECT_NE(r.recommendation.find(r.best->policy + " leaves the most GPU to spare"), std::string::npos);
  // min slack of smlp: deadline of a minus its bound (1000 - 125.527 us) vs b (2000 - 205.264 us).
  EXPECT_EQ(r.guaranteed[0].min_slack, Nanos{874'473});
}

// Without a period or a deadline anywhere every analysis is "schedulable" with nothing to meet:
// the report recommends nothing (it listed smlp, kx and federated as guaranteeing every deadline).
TEST(Report, RecommendsNothingWhenNoTaskHasADeadline) {
  Json j = Json::parse(kTwoTasks);
  for (Json& t : j.at("tasks")) {
    t.erase("period");
    t.erase("deadline");
  }
  ReportOptions o;
  o.horizon = Nanos{2'000'000};
  const Report r = make_report(parse_system(j, "two.json"), o);
  EXPECT_EQ(analysis(r, "smlp").tasks[0].bound, Nanos{125'527});  // the bounds stay
  EXPECT_TRUE(r.guaranteed.empty());
  EXPECT_FALSE(r.best);
  EXPECT_NE(r.recommendation.find("no task has a deadline or a period"), std::string::npos)
      << r.recommendation;
}

// A policy whose own simulation passed its bound guarantees nothing: on the Radeon VII, k = 5
// slots of 12 CUs split over shader engines unevenly (slot 1: 3 CUs of SE 0, 9 of SE 2) run a
// kernel at its smaller share's pace, 8.99 ms against kx's bound of 8 ms. The report listed kx
// as "guaranteeing every deadline" all the same.
TEST(Report, APolicyItsSimulationBrokeIsNotRecommended) {
  ReportOptions o;
  o.k = 5;
  o.policies = {"kx"};
  const Report r = make_report(load_any_system(GPURT_SOURCE_DIR "/examples/system/four-identical.json"), o);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations[0].analysis, "kx");
  for (const ReportCandidate& c : r.guaranteed) EXPECT_NE(c.analysis, "kx");
  EXPECT_NE(r.recommendation.find("(kx left out: simulated above its bound, see the consistency check)"),
            std::string::npos)
      << r.recommendation;
}

// Every simulated row releases each task's jobs in [0, horizon): the fifo row released
// ceil(horizon / shortest period) of every task (5 each for PBS Figure 1's periods 4, 5 and
// 10 ms over 20 ms, t3's last at 40 ms), so its maxima, misses and utilisation covered another
// window than the rows beside it.
TEST(Report, EveryPolicyReleasesTheSameJobsInTheHorizon) {
  const Report r = make_report(load_any_system(GPURT_SOURCE_DIR "/examples/system/pbs-figure1.system.json"));
  const ReportSimulation& be = simulation(r, "be");
  const ReportSimulation& fifo = simulation(r, "fifo");
  ASSERT_TRUE(fifo.ran);
  ASSERT_EQ(fifo.tasks.size(), be.tasks.size());
  for (std::size_t i = 0; i < be.tasks.size(); ++i) EXPECT_EQ(fifo.tasks[i].jobs, be.tasks[i].jobs) << i;
  EXPECT_EQ(fifo.tasks[2].jobs, 2);         // t3: 20 ms / 10 ms
  EXPECT_LE(fifo.span, Nanos{20'000'000});  // nothing released at or after the horizon
}

TEST(Report, ABoundBelowTheSimulatedMaximumIsAViolation) {
  Report r = make_report(two_tasks());
  r.checked = 0;
  r.violations.clear();
  for (ReportAnalysis& a : r.analyses)
    if (a.name == "smlp") a.tasks[0].bound = Nanos{1};  // a wrong bound
  check_consistency(r);
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].task, "a");
  EXPECT_EQ(r.violations[0].policy, "smlp");
  EXPECT_EQ(r.violations[0].bound, Nanos{1});
  EXPECT_EQ(r.violations[0].simulated, simulation(r, "smlp").tasks[0].max_response);
}

TEST(Report, OnlyTheChosenPoliciesAreSimulated) {
  ReportOptions o;
  o.policies = {"be", "smlp"};
  const Report r = make_report(two_tasks(), o);
  ASSERT_EQ(r.simulated.size(), 2u);
  EXPECT_EQ(r.simulated[0].policy, "be");
  EXPECT_EQ(r.simulated[1].policy, "smlp");
  o.policies = {"nope"};
  EXPECT_THROW(make_report(two_tasks(), o), InputError);
}

TEST(Report, JsonHasTheDocumentedShape) {
  const Json j = report_json(make_report(two_tasks()));
  EXPECT_EQ(j.at("format"), "gpurt/report@1");
  EXPECT_EQ(j.at("time_unit"), "us");
  EXPECT_TRUE(j.at("measured").is_null());
  const Json& smlp = j.at("analyses").at(0);
  EXPECT_EQ(smlp.at("name"), "smlp");
  EXPECT_EQ(smlp.at("applicable"), true);
  EXPECT_TRUE(smlp.at("why").is_null());
  EXPECT_EQ(smlp.at("schedulable"), true);
  EXPECT_EQ(smlp.at("tasks").at(0).at("name"), "a");
  EXPECT_EQ(smlp.at("tasks").at(0).at("bound"), 125.527);  // shortest decimal, file's unit
  for (const Json& a : j.at("analyses")) {
    for (const char* key :
         {"name", "source", "policy", "applicable", "why", "schedulable", "detail", "tasks"})
      EXPECT_TRUE(a.contains(key)) << key;
    // Every key always: a task row without a note says "note": null.
    for (const Json& t : a.at("tasks")) {
      for (const char* key : {"name", "bound", "deadline", "note"})
        EXPECT_TRUE(t.contains(key)) << a.at("name") << key;
      EXPECT_TRUE(t.at("note").is_null() || t.at("note").is_string());
    }
    if (!a.at("applicable").get<bool>()) {
      EXPECT_TRUE(a.at("why").is_string());
    }
  }
  for (const Json& s : j.at("simulated")) {
    EXPECT_TRUE(s.at("policy").is_string());
    for (const Json& t : s.at("tasks"))
      for (const char* key : {"name", "max_response", "mean_response", "misses"})
        EXPECT_TRUE(t.contains(key)) << key;
  }
  EXPECT_TRUE(j.at("recommendation").at("best").is_object());
  EXPECT_EQ(j.at("consistency").at("ok"), true);
  EXPECT_EQ(j.at("consistency").at("checked"), 6);  // smlp, kx, federated x 2 tasks
}

TEST(Report, HtmlHasTablesTimelinesAndCdfs) {
  ReportOptions o;
  o.record_jobs = true;
  const std::string html = report_html(make_report(two_tasks(), o), "two.json");
  EXPECT_NE(html.find("<table id=\"analyses\">"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"simulated\">"), std::string::npos);
  EXPECT_NE(html.find("class=\"timeline\""), std::string::npos);
  EXPECT_NE(html.find("Response times of a"), std::string::npos);
  EXPECT_NE(html.find("bound: smlp"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);  // nothing fetched from the network
}

// A task name longer than the 15 characters left of a timeline's lanes ran off the picture's
// left edge: cut with "…", whole in its tooltip; the tables keep it whole.
TEST(Report, LongTaskNamesAreCutInTheTimelineOnly) {
  std::string text = kTwoTasks;
  const std::string from = "\"name\": \"a\"";
  ASSERT_NE(text.find(from), std::string::npos);
  const std::string name = "radar range-doppler FFT <main>";
  text.replace(text.find(from), from.size(), "\"name\": \"" + name + "\"");
  ReportOptions o;
  o.record_jobs = true;
  const std::string html =
      report_html(make_report(parse_system(Json::parse(text), "two.json"), o), "two.json");
  EXPECT_NE(html.find("<tspan>radar range-do…<title>radar range-doppler FFT &lt;main&gt;</title></tspan>"),
            std::string::npos);
  EXPECT_NE(html.find(">radar range-doppler FFT &lt;main&gt;</td>"), std::string::npos);
}

// The bundled mixed system: CPU, copies and kernels with RTGPU work, so SMLP and RTGPU apply and
// PBS and FIFO do not; every bound whose policy ran holds in simulation.
TEST(Report, MixedExampleIsConsistent) {
  const System s = load_system(std::string(GPURT_SOURCE_DIR) + "/examples/system/mixed.system.json");
  const Report r = make_report(s);
  EXPECT_TRUE(analysis(r, "smlp").applicable);
  EXPECT_TRUE(analysis(r, "rtgpu").applicable);
  EXPECT_FALSE(analysis(r, "gpusched").applicable);
  EXPECT_FALSE(analysis(r, "fifo-theorem1").applicable);
  EXPECT_TRUE(simulation(r, "rtgpu-federated").ran) << simulation(r, "rtgpu-federated").why;
  EXPECT_GT(r.checked, 0);
  for (const ReportViolation& v : r.violations)
    ADD_FAILURE() << v.task << " under " << v.policy << ": " << v.simulated.count() << " > "
                  << v.bound.count();
}

// PBS Figure 1 as a system: GPUSched's table gives the bounds (latest finish after arrival), and
// the table played in the simulator ends every frame where the model says, so each simulated
// maximum equals its bound; the verdicts are analyse_pbs's own.
TEST(Report, PbsFigure1TableIsPlayedAsAnalysed) {
  const System s = load_system(std::string(GPURT_SOURCE_DIR) + "/examples/system/pbs-figure1.system.json");
  const Report r = make_report(s);
  const ReportAnalysis& gpusched = analysis(r, "gpusched");
  ASSERT_TRUE(gpusched.applicable) << gpusched.why;
  EXPECT_EQ(gpusched.schedulable, true);
  const ReportSimulation& played = simulation(r, "pbs-table");
  ASSERT_TRUE(played.ran) << played.why;
  ASSERT_EQ(played.tasks.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(gpusched.tasks[i].bound);
    EXPECT_EQ(played.tasks[i].max_response, *gpusched.tasks[i].bound) << gpusched.tasks[i].name;
    EXPECT_LE(*gpusched.tasks[i].bound, *gpusched.tasks[i].deadline);
  }
  // Five, four and two jobs in the 20 ms hyperperiod (periods 4, 5, 10 ms).
  EXPECT_EQ(played.tasks[0].jobs, 5);
  EXPECT_EQ(played.tasks[1].jobs, 4);
  EXPECT_EQ(played.tasks[2].jobs, 2);
  const PbsSystem pbs = *to_pbs(s).model;
  for (const auto& [name, policy] :
       {std::pair{"edf-serial", PbsPolicy::edf_serial}, std::pair{"edf-parallel", PbsPolicy::edf_parallel}}) {
    PbsOptions o;
    o.policy = policy;
    EXPECT_EQ(analysis(r, name).schedulable, analyse_pbs(pbs, o).schedulable) << name;
  }
  EXPECT_FALSE(analysis(r, "fifo-theorem1").schedulable.has_value());  // below the limit: no verdict
  EXPECT_TRUE(r.violations.empty());
}

// PBS Example 2.1 declares that J1 and J2 run 1.5 times slower together (30 -> 45 us). SMLP,
// k-exclusion with two slots and federated units run them side by side at L(i,k) = 30 us, so
// their bounds (30 us, "federated leaves the most GPU to spare") do not hold there: none is
// given; one slot runs one kernel at a time, so kx --k 1 keeps its bound, as GPUSched does.
TEST(Report, DeclaredInterferenceLeavesNoSideBySideBound) {
  const System s = load_any_system(GPURT_SOURCE_DIR "/examples/pbs/example-2-1.json");
  const Report r = make_report(s);
  for (const char* name : {"smlp", "kx", "federated"}) {
    const ReportAnalysis& a = analysis(r, name);
    EXPECT_FALSE(a.applicable) << name;
    EXPECT_NE(a.why.find("task \"J1\" declares a slowdown of 1.5"), std::string::npos) << a.why;
  }
  EXPECT_TRUE(analysis(r, "gpusched").applicable);
  ASSERT_TRUE(r.best) << r.recommendation;
  EXPECT_NE(r.best->policy, "federated");
  ReportOptions one;
  one.k = 1;
  const Report exclusive = make_report(s, one);
  const ReportAnalysis& kx = analysis(exclusive, "kx");
  ASSERT_TRUE(kx.applicable) << kx.why;
  ASSERT_TRUE(kx.tasks[1].bound);
  EXPECT_EQ(*kx.tasks[1].bound, Nanos{60'000});  // J2 waits for J1's 30 us, then its own 30
  // Without the slowdown the side-by-side bounds come back.
  System plain = s;
  for (SystemTask& t : plain.tasks)
    for (SystemSegment& seg : t.segments) seg.kernel.slowdown = 1.0;
  EXPECT_TRUE(analysis(make_report(plain), "federated").applicable);
  EXPECT_EQ(declared_interference(plain), "");
}

// Copies wait on the copy engines for other tasks' copies: three simultaneous 1000 us host-to-
// device copies got bounds of about 1075 us (copies counted as uncontended CPU time), though one
// engine copies them one after another. Each copy now waits at most for the longest copy of
// every other task on its engine: 2 x 1000 us here, added to every bound; a device-to-host copy
// on a GPU with two engines waits for none of them, and with one engine for all.
TEST(Report, CopiesWaitForOtherTasksCopiesInEveryBound) {
  const auto system = [](const std::string& platform, const std::string& c_copy) {
    return parse_system(
        Json::parse(R"({"format": "gpurt/system@1", "time_unit": "us", "platform": ")" + platform +
                    R"(", "rho": 1.1, "tasks": [
      {"name": "a", "period": 10000, "segments": [{"cpu": 10}, {"h2d": 1000}, {"kernel": {"wcet_by_units": [50]}}, {"cpu": 10}]},
      {"name": "b", "period": 10000, "segments": [{"cpu": 10}, {"h2d": 1000}, {"kernel": {"wcet_by_units": [50]}}, {"cpu": 10}]},
      {"name": "c", "period": 10000, "segments": [{"cpu": 10}, {")" +
                    c_copy + R"(": 1000}, {"kernel": {"wcet_by_units": [50]}}, {"cpu": 10}]}]})"),
        "copies.json");
  };
  const System same = system("rtx3060ti", "h2d");
  EXPECT_EQ(copy_waits(same), std::vector<Nanos>(3, Nanos{2'000'000}));
  const Report r = make_report(same);
  // smlp: 1020 us of CPU and copy + 2000 us copy wait + Lemma 2's 55.264 us.
  ASSERT_TRUE(analysis(r, "smlp").tasks[0].bound);
  EXPECT_EQ(*analysis(r, "smlp").tasks[0].bound, Nanos{3'075'264});
  EXPECT_EQ(*analysis(r, "kx").tasks[0].bound, Nanos{3'120'000});
  EXPECT_EQ(*analysis(r, "federated").tasks[0].bound, Nanos{3'070'000});
  EXPECT_TRUE(r.violations.empty());  // the simulated responses stay below every bound
  // c copies the other way: on two engines it meets neither a's nor b's copy.
  EXPECT_EQ(copy_waits(system("rtx3060ti", "d2h")),
            (std::vector<Nanos>{Nanos{1'000'000}, Nanos{1'000'000}, Nanos{0}}));
  EXPECT_EQ(copy_waits(system("jetson-tx2", "d2h")), std::vector<Nanos>(3, Nanos{2'000'000}));
  // The derived SMLP file keeps it, so that `gpurt analyze smlp` of the conversion gives the same.
  EXPECT_EQ(to_smlp(same).model->timing[0].copy_wait, Nanos{2'000'000});
}

// An smlp@1 file's copy_wait (what `convert --to smlp` writes for a system's copies) survives
// being read as a system: report, simulate-system and convert read smlp files that way, and
// dropped it, so `report` of a converted file bounded a job up to the whole wait below what
// `analyze smlp` gives on the same file. The wait rides on the task ("copy_wait" in system@1),
// round-trips, and the models that have no place for it do not apply.
TEST(Report, AnSmlpFilesCopyWaitIsKeptAsASystem) {
  const System s = parse_any_system(Json::parse(R"({"format": "gpurt/smlp@1", "time_unit": "us",
      "platform": "rtx3060ti", "rho": 1.1, "tasks": [
      {"name": "a", "wcet_by_units": [50], "period": 10000, "cpu_before": 1020, "cpu_after": 10, "copy_wait": 2000},
      {"name": "b", "wcet_by_units": [50], "period": 10000, "cpu_before": 1020, "cpu_after": 10}]})"),
                                    "waits.smlp.json");
  EXPECT_EQ(copy_waits(s), (std::vector<Nanos>{Nanos{2'000'000}, Nanos{0}}));
  const Report r = make_report(s);
  ASSERT_TRUE(analysis(r, "smlp").tasks[0].bound);
  // 1020 + 2000 + 10 us + Lemma 2: 50 us + ceil(50 us of b's area / 19 units) = 52.632 us.
  EXPECT_EQ(*analysis(r, "smlp").tasks[0].bound, Nanos{3'082'632});
  const SmlpResult direct = analyse_smlp(*to_smlp(s).model);
  EXPECT_EQ(*analysis(r, "smlp").tasks[0].bound, direct.tasks[0].job_bound);
  EXPECT_EQ(*analysis(r, "smlp").tasks[0].bound - *analysis(r, "smlp").tasks[1].bound, Nanos{2'000'000});
  EXPECT_EQ(*analysis(r, "kx").tasks[0].bound - *analysis(r, "kx").tasks[1].bound, Nanos{2'000'000});
  // The system file writes it and reads it back; the SMLP file derived again is the same.
  const System again = parse_system(to_json(s), "again.json");
  EXPECT_EQ(again.tasks[0].copy_wait, Nanos{2'000'000});
  EXPECT_EQ(to_smlp(again).model->timing[0].copy_wait, Nanos{2'000'000});
  EXPECT_EQ(to_smlp(again).model->timing[1].copy_wait, Nanos{0});
  const auto rtgpu = to_rtgpu(s);
  ASSERT_FALSE(rtgpu.applies());
  EXPECT_NE(rtgpu.why.find("task \"a\" declares a copy_wait of 2000 us"), std::string::npos) << rtgpu.why;
  EXPECT_FALSE(to_pbs(s).applies());
  EXPECT_FALSE(to_fifo(s).applies());
}

// Theorem 1 shows that SOME system at or above m - b_max + 1 has unbounded responses: at the limit
// the report gives no verdict (it said "NOT schedulable" of a task that meets every deadline),
// and only U_sum > m is one.
TEST(Report, FifoTheoremOneIsAWarningAtTheLimitAndAVerdictOnlyPastTheGpu) {
  const auto fifo = [](double wcet_ms) {
    return make_report(
        parse_any_system(Json::parse(fmt::format(R"({{"format": "gpurt/fifo@1", "time_unit": "ms",
        "gpu_threads": 4096, "tasks": [{{"name": "solo", "wcet": {}, "period": 1, "grid": 4, "block": 1024}}]}})",
                                                 wcet_ms)),
                         "fifo.json"));
  };
  // U_sum = 3686.4 >= 4096 - 1024 + 1 = 3073: one job of 4 x 1024 threads takes 0.9 ms <= 1 ms.
  const Report at = fifo(3686.4);
  const ReportAnalysis& warned = analysis(at, "fifo-theorem1");
  ASSERT_TRUE(warned.applicable) << warned.why;
  EXPECT_FALSE(warned.schedulable.has_value());
  EXPECT_NE(warned.detail.find("no verdict on this one"), std::string::npos) << warned.detail;
  EXPECT_EQ(analysis(at, "federated").schedulable, true);
  // U_sum = 4505.6 > 4096 threads: overloaded.
  EXPECT_EQ(analysis(fifo(4505.6), "fifo-theorem1").schedulable, false);
}

}  // namespace
}  // namespace gpurt
