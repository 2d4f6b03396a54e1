// The JSON form of a report (docs/report.md "Report": shape gpurt/report@1). Times are numbers
// in the system file's unit, each the shortest decimal of the exact value (from_nanos).
#include "gpurt/exp/report_internal.hpp"

namespace gpurt {

namespace {

Json time_or_null(const std::optional<Nanos>& t, TimeUnit u) {
  return t ? Json(from_nanos(*t, u)) : Json(nullptr);
}

Json analyses_json(const Report& r) {
  const TimeUnit u = r.time_unit;
  Json out = Json::array();
  for (const ReportAnalysis& a : r.analyses) {
    Json tasks = Json::array();
    for (const ReportTaskBound& b : a.tasks) {
      // Every key always (docs/report.md): a task without a note has "note": null.
      tasks.push_back(Json{{"name", b.name},
                           {"bound", time_or_null(b.bound, u)},
                           {"deadline", time_or_null(b.deadline, u)},
                           {"note", b.note.empty() ? Json(nullptr) : Json(b.note)}});
    }
    out.push_back(Json{{"name", a.name},
                       {"source", a.source},
                       {"policy", a.policy.empty() ? Json(nullptr) : Json(a.policy)},
                       {"applicable", a.applicable},
                       {"why", a.applicable ? Json(nullptr) : Json(a.why)},
                       {"schedulable", a.schedulable ? Json(*a.schedulable) : Json(nullptr)},
                       {"detail", a.detail},
                       {"tasks", std::move(tasks)}});
  }
  return out;
}

Json simulated_json(const Report& r) {
  const TimeUnit u = r.time_unit;
  Json out = Json::array();
  for (const ReportSimulation& s : r.simulated) {
    Json tasks = Json::array();
    for (const ReportSimTask& t : s.tasks) {
      tasks.push_back(Json{{"name", t.name},
                           {"jobs", t.jobs},
                           {"max_response", from_nanos(t.max_response, u)},
                           {"mean_response", from_nanos(t.mean_response, u)},
                           {"misses", t.misses}});
    }
    out.push_back(Json{{"policy", s.policy},
                       {"ran", s.ran},
                       {"why", s.ran ? Json(nullptr) : Json(s.why)},
                       {"detail", s.detail},
                       {"gpu_utilisation", s.gpu_utilisation ? Json(*s.gpu_utilisation) : Json(nullptr)},
                       {"span", from_nanos(s.span, u)},
                       {"tasks", std::move(tasks)}});
  }
  return out;
}

Json candidate_json(const ReportCandidate& c, TimeUnit u) {
  return Json{{"analysis", c.analysis},
              {"policy", c.policy},
              {"spare", c.spare},
              {"gpu_utilisation", c.gpu_utilisation ? Json(*c.gpu_utilisation) : Json(nullptr)},
              {"min_slack", time_or_null(c.min_slack, u)}};
}

Json measured_json(const Report& r, TimeUnit u) {
  if (!r.measured) return nullptr;
  Json tasks = Json::array();
  for (const ReportMeasuredTask& t : r.measured->tasks) {
    tasks.push_back(Json{{"name", t.name},
                         {"jobs", t.jobs},
                         {"max_response", from_nanos(t.max_response, u)},
                         {"mean_response", from_nanos(t.mean_response, u)},
                         {"misses", t.misses}});
  }
  Json above = Json::array();
  for (const ReportMeasuredAbove& a : r.measured->above) {
    above.push_back(Json{{"analysis", a.analysis},
                         {"task", a.task},
                         {"measured", from_nanos(a.measured, u)},
                         {"bound", from_nanos(a.bound, u)}});
  }
  return Json{{"source", r.measured->source},
              {"simulated", r.measured->simulated},
              {"tasks", std::move(tasks)},
              {"above_bound", std::move(above)}};
}

}  // namespace

Json report_json(const Report& r) {
  const TimeUnit u = r.time_unit;
  Json guaranteed = Json::array();
  for (const ReportCandidate& c : r.guaranteed) guaranteed.push_back(candidate_json(c, u));
  Json violations = Json::array();
  for (const ReportViolation& v : r.violations) {
    violations.push_back(Json{{"analysis", v.analysis},
                              {"policy", v.policy},
                              {"task", v.task},
                              {"simulated", from_nanos(v.simulated, u)},
                              {"bound", from_nanos(v.bound, u)}});
  }
  return Json{
      {"format", "gpurt/report@1"},
      {"time_unit", std::string(to_string(u))},
      {"platform", r.platform},
      {"model", r.model},
      {"horizon", from_nanos(r.horizon, u)},
      {"analyses", analyses_json(r)},
      {"simulated", simulated_json(r)},
      {"measured", measured_json(r, u)},
      {"recommendation", Json{{"guaranteed", std::move(guaranteed)},
                              {"best", r.best ? candidate_json(*r.best, u) : Json(nullptr)},
                              {"text", r.recommendation}}},
      {"consistency",
       Json{{"checked", r.checked}, {"ok", r.violations.empty()}, {"violations", std::move(violations)}}}};
}

}  // namespace gpurt
