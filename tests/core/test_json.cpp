#include <gtest/gtest.h>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
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

// A value is shown whole up to 200 bytes, then cut with its size: a 10 MB line of a malformed
// CSV must not flood the terminal. value() keeps it whole.
TEST(Json, ErrorsShowLongValuesCut) {
  const gpurt::InputError e("f.csv", "line 2", std::string(300, 'x'), "bad");
  EXPECT_EQ(std::string(e.what()), "f.csv: line 2 = " + std::string(200, 'x') + "... (300 bytes): bad");
  EXPECT_EQ(e.value().size(), 300u);
  EXPECT_EQ(std::string(gpurt::InputError("f", "p", std::string(200, 'y'), "q").what()),
            "f: p = " + std::string(200, 'y') + ": q");
  // A cut never splits a UTF-8 character: bytes 199-200 are one "é", so the shown part ends
  // before it; a 3-byte "中" at 198-200 likewise.
  const std::string accented = std::string(199, 'a') + "\u00e9" + std::string(50, 'b');
  EXPECT_EQ(std::string(gpurt::InputError("f", "p", accented, "q").what()),
            "f: p = " + std::string(199, 'a') + "... (251 bytes): q");
  const std::string han = std::string(198, 'a') + "\u4e2d" + std::string(50, 'b');
  EXPECT_EQ(std::string(gpurt::InputError("f", "p", han, "q").what()),
            "f: p = " + std::string(198, 'a') + "... (251 bytes): q");
}

// The path and the file name are cut the same way (a 5 MB unknown key is a path), and a name
// longer than 256 bytes is refused: tables pad every row to the longest name.
TEST(Json, LongPathsAreCutAndLongNamesRefused) {
  const std::string key(300, 'k');
  const Json doc = parse_json("{\"" + key + "\": 1, \"name\": \"" + std::string(257, 'n') + "\"}", "f.json");
  const JsonNode root(doc, "f.json");
  EXPECT_EQ(error_of([&] {
              root.expect_object({"name"});
            }).rfind("f.json: " + std::string(200, 'k') + "... (300 bytes): unknown key", 0),
            0u);
  EXPECT_NE(error_of([&] {
              (void)root.at("name").as_name();
            }).find("is longer than 256 bytes (257); names are printed in tables"),
            std::string::npos);
  const Json fine = parse_json("{\"name\": \"" + std::string(256, 'n') + "\"}", "f.json");
  EXPECT_EQ(JsonNode(fine, "f.json").at("name").as_name().size(), 256u);
  EXPECT_EQ(std::string(gpurt::InputError(std::string(250, 'f'), "bad").what()),
            std::string(200, 'f') + "... (250 bytes): bad");
}

// An explicit null is an error, not the key's default: "switch_cost": null would otherwise
// silently keep the preset's value.
TEST(Json, AnExplicitNullIsAnErrorNotADefault) {
  const Json doc = parse_json(R"({"model": {"switch_cost": null}, "absent": {}})", "p.json");
  const JsonNode root(doc, "p.json");
  EXPECT_EQ(error_of([&] { (void)root.at("model").find("switch_cost"); }),
            "p.json: model.switch_cost = null: is null: give a value, or leave the key out for its default");
  EXPECT_EQ(error_of([&] { (void)root.at("model").has("switch_cost"); }),
            "p.json: model.switch_cost = null: is null: give a value, or leave the key out for its default");
  EXPECT_FALSE(root.at("absent").find("switch_cost").has_value());
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
            "v.json: a[4] = 1e+300: is too large (a time must be below 9.2e18 ns, about 292 years)");
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

// parse_json reckons the memory of the tree before building it: 32 bytes a value, 64 more an
// array or object, 96 a key, 48 a string, the characters of a string or key past 15 (+17). By
// hand for [0, [], {"a": 1}]: 5 values (160) + 3 containers (192) + 1 key (96) = 448; a
// 20-character string is 32 + 48 + 37.
TEST(Json, TheTreesMemoryIsReckonedBeforeItIsBuilt) {
  EXPECT_EQ(json_tree_bytes(R"([0, [], {"a": 1}])"), 448u);
  EXPECT_EQ(json_tree_bytes(R"(["abcdefghijklmnopqrst"])"), 32u + 64u + 32u + 48u + 37u);
  EXPECT_EQ(json_tree_bytes(R"(["", ""])"), 32u + 64u + 2u * (32u + 48u));
  EXPECT_EQ(json_tree_bytes(R"({"abcdefghijklmnop": null})"), 32u + 64u + 96u + 33u + 32u);
  EXPECT_EQ(max_json_tree_bytes(), std::int64_t{2} << 30);
  EXPECT_NE(error_of([] { json_tree_bytes("[0,"); }).find("malformed JSON"), std::string::npos);
}

// An object holds at most 1,024 keys: the ordered JSON type builds an object of n keys in n^2/2
// comparisons (100,000 keys took 16.9 s). The limit names the object's path.
TEST(Json, AnObjectOfMoreThanTheKeyLimitIsRefused) {
  const auto object = [](int keys) {
    std::string text = "{\"tasks\": [{";
    for (int k = 0; k < keys; ++k) text += fmt::format("{}\"k{}\": 0", k == 0 ? "" : ",", k);
    return text + "}]}";
  };
  EXPECT_EQ(kMaxJsonObjectKeys, 1024u);
  EXPECT_EQ(parse_json(object(1024), "ok.json")["tasks"][0].size(), 1024u);
  EXPECT_EQ(error_of([&] { parse_json(object(1025), "many.json"); }),
            "many.json: tasks[0]: holds more than 1024 keys (the limit; gpurt's formats need fewer than 30)");
}

// Every reader goes through parse_json: nesting is bounded there, before anything walks the
// value recursively (printing it in an error message overflowed the stack at 80,000 levels).
TEST(Json, NestingDeeperThanTheLimitIsRefusedWithItsLineAndColumn) {
  const auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  const std::string prefix = R"({"format":"gpurt/smlp@1","platform":"h100","tasks":[{"name":)";
  const std::string deep = prefix + nested(100000) + R"(,"wcet_by_units":[1]}]})";
  // Three levels are open before "name"; its 62nd bracket opens level 65.
  EXPECT_EQ(error_of([&] { parse_json(deep, "deep.json"); }),
            fmt::format("deep.json: arrays and objects nested more than 64 levels deep at line 1, column {} "
                        "(the limit)",
                        prefix.size() + 62));
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(100000, '}');
  EXPECT_NE(
      error_of([&] { parse_json(objects, "o.json"); }).find("more than 64 levels deep at line 1, column 321"),
      std::string::npos);
  // Brackets inside strings do not count, and lines are counted.
  const std::string text = "{\"s\": \"[[[{{{\\\"[[\",\n \"a\": " + nested(70) + "}";
  EXPECT_NE(error_of([&] { parse_json(text, "t.json"); }).find("at line 2, column 70"), std::string::npos);

  EXPECT_EQ(kMaxJsonDepth, 64);
  const Json ok = parse_json(nested(64), "ok.json");  // exactly the limit
  EXPECT_EQ(JsonNode(ok, "ok.json").brief().substr(0, 4), "[[[[");
  EXPECT_NE(error_of([] {
              parse_json("[" + std::string(64, '[') + std::string(65, ']'), "x.json");
            }).find("x.json: arrays and objects nested more than 64 levels deep at line 1, column 65"),
            std::string::npos);
  const Json sixty = parse_json(R"({"a": )" + nested(60) + "}", "60.json");
  const JsonNode node = JsonNode(sixty, "60.json").at("a");
  EXPECT_EQ(error_of([&] { node.as_string(); }), "60.json: a: must be a string, not an array");
}

// The examiner's configs repeat "comment" for multi-line comments; only that key may repeat.
TEST(Json, RepeatedCommentKeysAreAcceptedAndNoOtherKey) {
  const Json doc = parse_json(
      R"({"comment": "one", "comment": "two", "b": [{"comment": 1, "x": 2, "comment": 3}]})", "c.json");
  EXPECT_EQ(doc.at("comment"), "two");
  EXPECT_EQ(doc.at("b")[0].at("comment"), 3);
  EXPECT_EQ(doc.at("b")[0].at("x"), 2);
  EXPECT_EQ(error_of([] { parse_json(R"({"comment": 1, "comments": 1, "comments": 2})", "c.json"); }),
            "c.json: (top level): duplicate key \"comments\"");
  EXPECT_EQ(error_of([] { parse_json(R"({"a": {"comment": 1, "comment": 2, "x": 1, "x": 2}})", "c.json"); }),
            "c.json: a: duplicate key \"x\"");
}

// Task names are printed in text tables: a newline, DEL, a C1 control or a Unicode direction
// control (which can make a table lie about what it shows) is refused with the name's path;
// other characters, non-ASCII letters included, are kept.
TEST(Json, ANameHoldsNoControlCharacters) {
  const auto name_error = [](const std::string& name) {
    const Json doc{{"name", name}};
    return error_of([&] { (void)JsonNode(doc, "t.json").at("name").as_name(); });
  };
  EXPECT_EQ(name_error("τ_1 ü-task (50%)"), "<no error>");
  EXPECT_EQ(name_error("a\u200Db"), "<no error>");  // a zero-width joiner is not a direction control
  EXPECT_EQ(name_error(""), "t.json: name = \"\": must not be empty");
  for (const std::string& bad :
       {std::string("a\nb"), std::string("a\tb"), std::string("a\x7f"), std::string("a\u0085b"),
        std::string("a\u202Eb"), std::string("\u2066x"), std::string("x\u200F")}) {
    EXPECT_NE(name_error(bad).find("t.json: name = "), std::string::npos) << name_error(bad);
    EXPECT_NE(name_error(bad).find("holds a control character"), std::string::npos) << name_error(bad);
  }
}

// gpurt::printable escapes the characters as_name refuses (C0 but newline and tab, DEL, C1,
// bidirectional controls) and bytes that are no UTF-8, and leaves other UTF-8 alone.
TEST(Json, PrintableEscapesControlCharactersAndKeepsNewlinesAndText) {
  EXPECT_EQ(printable("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(printable("line 1\nline\t2\x7f"), "line 1\nline\t2\\x7f");
  EXPECT_EQ(printable("x\u0085y\u202Ez\u2066"), "x\\xc2\\x85y\\xe2\\x80\\xaez\\xe2\\x81\\xa6");
  EXPECT_EQ(printable("\u00b5s caf\u00e9 \u2013 \u4e2d"), "\u00b5s caf\u00e9 \u2013 \u4e2d");
  // A byte that starts no UTF-8 character is escaped too (no C1 control, but no character
  // either): a lone lead byte, Latin-1, a stray continuation, an overlong form, a surrogate,
  // beyond U+10FFFF. Valid 4-byte characters stay.
  EXPECT_EQ(printable("\xc2"), "\\xc2");
  EXPECT_EQ(printable("caf\xe9!"), "caf\\xe9!");
  EXPECT_EQ(printable("a\x80"
                      "b"),
            "a\\x80b");
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
  EXPECT_EQ(printable("\xff\"x"), "\\xff\"x");
  EXPECT_EQ(printable("\U0001F600 \u4e2d"), "\U0001F600 \u4e2d");
  EXPECT_EQ(utf8_character_at("\U0001F600", 0), 4U);
  EXPECT_EQ(control_character_at("ab\u202D", 2), 3U);
  EXPECT_EQ(control_character_at("ab", 2), 0U);
}

// what() is a C string: a NUL byte quoted from a binary input ended the message there (a chart
// CSV's cell "1<NUL>2" gave "f.csv: row 2" and nothing of the problem). It is written \x00.
TEST(Json, AnErrorQuotingANulByteKeepsTheRestOfItsMessage) {
  const InputError e("f.csv", "row 2",
                     std::string("1\0"
                                 "2",
                                 3),
                     "is not a number");
  EXPECT_EQ(std::string(e.what()), "f.csv: row 2 = 1\\x002: is not a number");
  EXPECT_EQ(e.value(), std::string("1\0"
                                   "2",
                                   3));  // the value itself is kept whole
  EXPECT_EQ(std::string(Error(std::string("a\0b", 3)).what()), "a\\x00b");
}
