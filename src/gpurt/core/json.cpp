#include "gpurt/core/json.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"

namespace gpurt {

namespace {

// Tracks where the parser is, so a duplicate key can be reported with its path.
struct Frame {
  bool array = false;
  long index = -1;
  std::string key;
  std::set<std::string> keys;
};

std::string frames_path(const std::vector<Frame>& frames, std::size_t upto) {
  std::string path;
  for (std::size_t i = 0; i < upto; ++i) {
    const Frame& f = frames[i];
    if (f.array) {
      path += fmt::format("[{}]", f.index);
    } else {
      if (!path.empty()) path += '.';
      path += f.key;
    }
  }
  return path;
}

// Line and column (1-based) of the bracket that opens nesting level `limit` + 1, skipping
// brackets inside strings; {0, 0} when nothing nests that deep.
std::pair<std::size_t, std::size_t> too_deep_at(std::string_view text, int limit) {
  std::size_t line = 1, column = 0;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return {line, column};
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return {0, 0};
}

std::string strip_nlohmann_prefix(std::string what) {
  // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> "parse error at ..."
  if (!what.empty() && what.front() == '[') {
    const auto close = what.find("] ");
    if (close != std::string::npos) what.erase(0, close + 2);
  }
  return what;
}

}  // namespace

// The checks parse_json makes before building the tree, as a SAX handler (no tree): nesting
// depth, duplicate keys with their path, and syntax errors. nlohmann's callback parser would do
// the same while building, but it scans the enclosing array at every object's end (to drop
// discarded values), which made reading an array of n objects take O(n^2) time: 40,000
// iterations of a result file took 25 s in `gpurt plot`.
//
// It also reckons the memory the tree will take and refuses a text whose tree would pass
// max_json_tree_bytes() (2 GiB): the tree takes far more than the text where the tokens are
// short. Per value: its 16-byte slot, twice (a growing vector's spare capacity, and its old
// buffer while it moves); an array or object: its heap container; an object's key: its entry;
// a string: its heap std::string (48, even ""), and its characters past the small-string
// buffer. Measured peaks (2-core VM, /usr/bin/time -f %M): 33 M "" strings 2.62 GB (79 bytes
// each, reckoned 80), 50 M zeros 1.6 GB (reckoned 1.6), 17.8 M [] 1.16 GB (reckoned 1.71).
class JsonChecker {
 public:
  JsonChecker(std::string_view text, const std::string& file, std::uint64_t tree_limit)
      : _text(text), _file(file), _tree_limit(tree_limit) {}
  std::uint64_t tree_bytes() const { return _tree_bytes; }
  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(Json::number_integer_t) { return value(); }
  bool number_unsigned(Json::number_unsigned_t) { return value(); }
  bool number_float(Json::number_float_t, const Json::string_t&) { return value(); }
  bool string(Json::string_t& s) {
    grow(48 + (s.size() > 15 ? s.size() + 17 : 0));  // the std::string on the heap, even ""
    return value();
  }
  bool binary(Json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return open(false); }
  bool start_array(std::size_t) { return open(true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& key) {
    Frame& top = _frames.back();
    // A repeated "comment" is the examiner's multi-line comment idiom, which its parser
    // accepts (the last one is kept); any other repeated key is an error.
    if (!top.keys.insert(key).second && key != "comment") {
      const std::string where = frames_path(_frames, _frames.size() - 1);
      throw InputError(_file, where.empty() ? std::string("(top level)") : where, "",
                       fmt::format("duplicate key \"{}\"", key));
    }
    if (top.keys.size() > kMaxJsonObjectKeys) {
      const std::string where = frames_path(_frames, _frames.size() - 1);
      throw InputError(_file, where.empty() ? std::string("(top level)") : where, "",
                       fmt::format("holds more than {} keys (the limit; gpurt's formats need fewer than 30)",
                                   kMaxJsonObjectKeys));
    }
    top.key = key;
    grow(96 + (key.size() > 15 ? key.size() + 17 : 0));
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    throw InputError(_file, "malformed JSON: " + strip_nlohmann_prefix(e.what()));
  }

 private:
  bool value() {
    if (!_frames.empty() && _frames.back().array) ++_frames.back().index;
    grow(32);  // its 16-byte slot, twice: a growing vector's spare capacity and its old buffer
    return true;
  }
  void grow(std::uint64_t bytes) {
    _tree_bytes += bytes;
    if (_tree_bytes > _tree_limit)
      throw InputError(_file,
                       fmt::format("would take more than {} bytes of memory as a JSON tree (short values "
                                   "take many times their text; GPURT_MAX_JSON_TREE_BYTES raises the limit)",
                                   _tree_limit));
  }
  bool open(bool array) {
    // Deep nesting is refused before it is built: printing or walking such a value recursively
    // would overflow the stack. The frames are the arrays and objects already open.
    if (static_cast<int>(_frames.size()) >= kMaxJsonDepth) {
      const auto [line, column] = too_deep_at(_text, kMaxJsonDepth);
      throw InputError(_file, fmt::format("arrays and objects nested more than {} levels deep at line {}, "
                                          "column {} (the limit)",
                                          kMaxJsonDepth, line, column));
    }
    value();
    grow(64);  // the vector or map on the heap
    _frames.push_back(array ? Frame{true, -1, {}, {}} : Frame{});
    return true;
  }
  bool close() {
    if (!_frames.empty()) _frames.pop_back();
    return true;
  }
  std::string_view _text;
  const std::string& _file;
  std::vector<Frame> _frames;
  std::uint64_t _tree_bytes = 0;
  std::uint64_t _tree_limit;
};

std::uint64_t json_tree_bytes(std::string_view text) {
  const std::string file = "(text)";
  JsonChecker checker(text, file, UINT64_MAX);
  try {
    Json::sax_parse(text.begin(), text.end(), &checker, nlohmann::detail::input_format_t::json,
                    /*strict=*/true, /*ignore_comments=*/false);
  } catch (const Json::exception& e) {
    throw InputError(file, "malformed JSON: " + strip_nlohmann_prefix(e.what()));
  }
  return checker.tree_bytes();
}

Json parse_json(std::string_view text, const std::string& file) {
  JsonChecker checker(text, file, static_cast<std::uint64_t>(max_json_tree_bytes()));
  try {
    Json::sax_parse(text.begin(), text.end(), &checker, nlohmann::detail::input_format_t::json,
                    /*strict=*/true, /*ignore_comments=*/false);
    return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const Json::parse_error& e) {
    throw InputError(file, "malformed JSON: " + strip_nlohmann_prefix(e.what()));
  } catch (const Json::exception& e) {
    throw InputError(file, "malformed JSON: " + strip_nlohmann_prefix(e.what()));
  }
}

Json load_json_file(const std::string& path) { return parse_json(read_text_file(path), path); }

JsonNode::JsonNode(const Json& value, std::string file, std::string path)
    : _value(&value), _file(std::move(file)), _path(std::move(path)) {}

JsonNode JsonNode::child(const Json& value, std::string path) const {
  return JsonNode(value, _file, std::move(path));
}

std::string JsonNode::brief() const {
  std::string text = _value->dump(-1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

void JsonNode::fail(const std::string& problem) const {
  const bool container = _value->is_object() || _value->is_array();
  throw InputError(_file, _path.empty() ? std::string("(top level)") : _path,
                   container && brief().size() > 40 ? std::string() : brief(), problem);
}

static const char* type_name(const Json& j) {
  switch (j.type()) {
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::null:
      return "null";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

void JsonNode::expect_object(std::initializer_list<std::string_view> allowed) const {
  if (!_value->is_object()) fail(fmt::format("must be an object, not {}", type_name(*_value)));
  const bool comments = std::find(allowed.begin(), allowed.end(), "comment") != allowed.end();
  for (const auto& [key, value] : _value->items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    // The examiner matches a key by the prefix of a known one (VerifyConfigKeys), and its configs
    // number their comments ("comment_1"); only comments get that leniency here.
    if (comments && key.starts_with("comment")) continue;
    std::string_view best;
    std::size_t best_distance = 3;  // hint only for close names
    for (std::string_view candidate : allowed) {
      const std::size_t d = edit_distance(key, candidate);
      if (d < best_distance) {
        best_distance = d;
        best = candidate;
      }
    }
    std::string hint;
    if (!best.empty()) {
      hint = fmt::format(" (did you mean \"{}\"?)", best);
    } else {
      hint = " (allowed keys:";
      for (std::string_view candidate : allowed) hint += fmt::format(" \"{}\"", candidate);
      hint += ")";
    }
    const std::string path = _path.empty() ? key : _path + "." + key;
    throw InputError(_file, path, "", "unknown key" + hint);
  }
}

std::optional<JsonNode> JsonNode::find(std::string_view key) const {
  if (!_value->is_object()) fail(fmt::format("must be an object, not {}", type_name(*_value)));
  const auto it = _value->find(key);
  if (it == _value->end()) return std::nullopt;
  JsonNode node = child(*it, _path.empty() ? std::string(key) : _path + "." + std::string(key));
  // An explicit null is not a default: "switch_cost": null silently keeping the preset's value
  // would hide a mistake (a generator writing None, a template left unfilled).
  if (it->is_null()) node.fail("is null: give a value, or leave the key out for its default");
  return node;
}

JsonNode JsonNode::at(std::string_view key) const {
  auto found = find(key);
  if (!found) {
    throw InputError(_file, _path.empty() ? std::string("(top level)") : _path, "",
                     fmt::format("missing required key \"{}\"", key));
  }
  return *found;
}

std::vector<JsonNode> JsonNode::items() const {
  if (!_value->is_array()) fail(fmt::format("must be an array, not {}", type_name(*_value)));
  std::vector<JsonNode> out;
  out.reserve(_value->size());
  for (std::size_t i = 0; i < _value->size(); ++i) {
    out.push_back(child((*_value)[i], fmt::format("{}[{}]", _path, i)));
  }
  return out;
}

std::string JsonNode::as_name() const {
  if (as_string().empty()) fail("must not be empty");
  return as_label();
}

std::string JsonNode::as_label() const {
  const std::string name = as_string();
  // Tables pad every row to the longest name: a 2 MB name would print gigabytes.
  constexpr std::size_t kMaxNameBytes = 256;
  if (name.size() > kMaxNameBytes)
    fail(
        fmt::format("is longer than {} bytes ({}); names are printed in tables", kMaxNameBytes, name.size()));
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (control_character_at(name, i) > 0) fail("holds a control character; names are printed in tables");
  }
  return name;
}

std::string JsonNode::as_string() const {
  if (!_value->is_string()) fail(fmt::format("must be a string, not {}", type_name(*_value)));
  return _value->get<std::string>();
}

bool JsonNode::as_bool() const {
  if (!_value->is_boolean()) fail(fmt::format("must be true or false, not {}", type_name(*_value)));
  return _value->get<bool>();
}

double JsonNode::as_number() const {
  if (!_value->is_number()) fail(fmt::format("must be a number, not {}", type_name(*_value)));
  const double v = _value->get<double>();
  if (!std::isfinite(v)) fail("must be a finite number");
  return v;
}

std::int64_t JsonNode::as_int() const {
  if (_value->is_number_unsigned()) {
    const auto u = _value->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) fail("is too large");
    return static_cast<std::int64_t>(u);
  }
  if (_value->is_number_integer()) return _value->get<std::int64_t>();
  const double v = as_number();
  if (std::trunc(v) != v) fail("must be a whole number");
  if (std::fabs(v) > 9.2e18) fail("is too large");
  return static_cast<std::int64_t>(v);
}

std::int64_t JsonNode::as_int_in(std::int64_t lo, std::int64_t hi) const {
  const std::int64_t v = as_int();
  if (v < lo || v > hi) fail(fmt::format("must be in {}..{}", lo, hi));
  return v;
}

std::uint64_t JsonNode::as_uint64() const {
  if (_value->is_number_unsigned()) return _value->get<std::uint64_t>();
  if (_value->is_number_integer()) {
    const auto v = _value->get<std::int64_t>();
    if (v < 0) fail("must be in 0..18446744073709551615");
    return static_cast<std::uint64_t>(v);
  }
  const double v = as_number();
  if (std::trunc(v) != v) fail("must be a whole number");
  // 2^64 is exactly representable; every double below it converts exactly.
  if (v < 0 || v >= 18446744073709551616.0) fail("must be in 0..18446744073709551615");
  return static_cast<std::uint64_t>(v);
}

Nanos JsonNode::as_positive_time(TimeUnit unit, Rounding rounding) const {
  const double v = as_number();
  if (!(v > 0)) fail("must be > 0");
  const auto t = to_nanos(v, unit, rounding);
  if (!t) fail("is too large (a time must be below 9.2e18 ns, about 292 years)");
  if (t->count() <= 0) fail(fmt::format("must be at least 1 ns (time_unit is {})", to_string(unit)));
  return *t;
}

Nanos JsonNode::as_nonnegative_time(TimeUnit unit, Rounding rounding) const {
  const double v = as_number();
  if (v < 0) fail("must be >= 0");
  const auto t = to_nanos(v, unit, rounding);
  if (!t) fail("is too large (a time must be below 9.2e18 ns, about 292 years)");
  return *t;
}

TimeUnit read_time_unit(const JsonNode& root, TimeUnit fallback) {
  const auto node = root.find("time_unit");
  if (!node) return fallback;
  const auto unit = parse_time_unit(node->as_string());
  if (!unit) node->fail("must be one of \"ns\", \"us\", \"ms\", \"s\"");
  return *unit;
}

void expect_format(const JsonNode& root, std::string_view expected) {
  if (!root.is_object()) root.fail("must be a JSON object");
  const JsonNode format = root.at("format");
  const std::string actual = format.as_string();
  if (actual == expected) return;
  if (actual == "gpurt/system@1" && expected.rfind("gpurt/", 0) == 0) {
    // A task system: the models of the other formats are derived from it.
    const std::string_view model = expected.substr(6, expected.find('@') - 6);
    format.fail(
        fmt::format("must be \"{}\"; this is a task system: `gpurt convert FILE --to {}` writes the "
                    "{} model of it (or give it to `gpurt report`)",
                    expected, model, model));
  }
  format.fail(fmt::format("must be \"{}\"", expected));
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<bool> hex_bits(const JsonNode& node, std::string_view digits) {
  std::vector<bool> bit(digits.size() * 4, false);
  for (std::size_t d = 0; d < digits.size(); ++d) {
    const char c = digits[digits.size() - 1 - d];
    int v = 0;
    if (c >= '0' && c <= '9')
      v = c - '0';
    else if (c >= 'a' && c <= 'f')
      v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      v = c - 'A' + 10;
    else
      node.fail(fmt::format("'{}' is not a hexadecimal digit", c));
    for (std::size_t b = 0; b < 4; ++b) bit[d * 4 + b] = ((v >> b) & 1) != 0;
  }
  return bit;
}

}  // namespace gpurt
