#include <gtest/gtest.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/json.hpp"

using namespace gpurt;

namespace {
// The message of the InputError that `f` throws.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}
}  // namespace

TEST(Json, MalformedJsonNamesFileLineAndColumn) {
  const std::string msg = error_of([] { parse_json("{\n  \"a\": 1,\n}", "x.json"); });
  EXPECT_NE(msg.find("x.json: malformed JSON"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
}

TEST(Json, DuplicateKeysAreErrorsWithTheirPath) {
  EXPECT_EQ(error_of([] { parse_json(R"({"tasks": [{"a": 1}, {"name": 1, "name": 2}]})", "f.json"); }),
            "f.json: tasks[1]: duplicate key \"name\"");
  EXPECT_EQ(error_of([] { parse_json(R"({"x": 1, "x": 1})", "f.json"); }),
            "f.json: (top level): duplicate key \"x\"");
  // The same key in different objects is fine.
  EXPECT_NO_THROW(parse_json(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [[{"x": 1}], {"x": 2}]})", "f"));
}

TEST(Json, UnknownKeyGetsADidYouMeanHint) {
  const Json doc = parse_json(R"({"tasks": [{"name": "a", "wcet_by_unit": [1]}]})", "t.json");
  const JsonNode task = JsonNode(doc, "t.json").at("tasks").items()[0];
  EXPECT_EQ(error_of([&] {
              task.expect_object({"name", "wcet_by_units"});
            }),
            "t.json: tasks[0].wcet_by_unit: unknown key (did you mean \"wcet_by_units\"?)");
  const Json far = parse_json(R"({"zzzzzz": 1})", "t.json");
  EXPECT_EQ(error_of([&] { JsonNode(far, "t.json").expect_object({"name"}); }),
            "t.json: zzzzzz: unknown key (allowed keys: \"name\")");
}

TEST(Json, TypedAccessorsNamePathAndValue) {
  const Json doc = parse_json(R"({"a": [1, -5, 2.5, "x", 1e300], "b": true})", "v.json");
  const auto a = JsonNode(doc, "v.json").at("a").items();
  EXPECT_EQ(a[0].as_int(), 1);
  EXPECT_EQ(error_of([&] { a[1].as_positive_time(TimeUnit::us, Rounding::up); }),
            "v.json: a[1] = -5: must be > 0");
  EXPECT_EQ(error_of([&] { a[2].as_int(); }), "v.json: a[2] = 2.5: must be a whole number");
  EXPECT_EQ(error_of([&] { a[3].as_number(); }), "v.json: a[3] = \"x\": must be a number, not a string");
  EXPECT_EQ(error_of([&] { a[4].as_positive_time(TimeUnit::s, Rounding::up); }),
            "v.json: a[4] = 1e+300: is too large");
  EXPECT_EQ(error_of([&] { a[0].as_int_in(2, 3); }), "v.json: a[0] = 1: must be in 2..3");
  EXPECT_EQ(error_of([&] { JsonNode(doc, "v.json").at("c"); }),
            "v.json: (top level): missing required key \"c\"");
  EXPECT_EQ(error_of([&] { JsonNode(doc, "v.json").at("b").as_string(); }),
            "v.json: b = true: must be a string, not a boolean");
}

TEST(Json, TimeUnitAndFormat) {
  const Json doc = parse_json(R"({"format": "gpurt/smlp@1", "time_unit": "hours"})", "u.json");
  const JsonNode root(doc, "u.json");
  EXPECT_NO_THROW(expect_format(root, "gpurt/smlp@1"));
  EXPECT_EQ(error_of([&] { expect_format(root, "gpurt/pbs@1"); }),
            "u.json: format = \"gpurt/smlp@1\": must be \"gpurt/pbs@1\"");
  EXPECT_EQ(error_of([&] { read_time_unit(root); }),
            "u.json: time_unit = \"hours\": must be one of \"ns\", \"us\", \"ms\", \"s\"");
  const Json none = parse_json("{}", "n.json");
  EXPECT_EQ(read_time_unit(JsonNode(none, "n.json")), TimeUnit::us);
}

TEST(Json, EditDistance) {
  EXPECT_EQ(edit_distance("rho", "rho"), 0u);
  EXPECT_EQ(edit_distance("deadlin", "deadline"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}
