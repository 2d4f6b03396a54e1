// Strict JSON reading: every value knows its file and path, so every error can name both
// (DESIGN.md "Bad input gets a clear error"). Duplicate keys (but "comment") and unknown keys are errors.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpurt/core/time.hpp"

namespace gpurt {

// Insertion-ordered, so output keys come in the order the formats document.
using Json = nlohmann::ordered_json;

/// How deeply arrays and objects may nest in a parsed document (gpurt's formats need fewer than 10
/// levels; the bound keeps every recursive walk of a parsed value off the end of the stack).
inline constexpr int kMaxJsonDepth = 64;

/// How many keys one object may hold (gpurt's formats use fewer than 30): the ordered JSON type
/// finds a key by a linear scan as it builds an object, so an object of n keys costs n^2/2
/// comparisons (100,000 keys, a 0.93 MB file, took 16.9 s; 1,024 take a millisecond).
inline constexpr std::size_t kMaxJsonObjectKeys = 1024;

/// Parses `text` as JSON; `file` names it in errors. Throws InputError (with line and column)
/// on malformed JSON, on arrays and objects nested more than kMaxJsonDepth deep, and on a key
/// that appears twice in one object ("comment" excepted: the examiner's configs repeat it for
/// multi-line comments, and the last one is kept).
Json parse_json(std::string_view text, const std::string& file);

/// The memory parse_json reckons the tree of `text` takes: 32 bytes a value, 64 more an array or
/// object, 96 an object key, 48 a string, and the characters of strings and keys past 15 (+17).
/// parse_json refuses a text past max_json_tree_bytes() (core/io.hpp) before building its tree;
/// `generate rtgpu` checks what it writes (under the default limits the byte limit comes first:
/// gpurt's own files reckon at 1-10 times their size). InputError on malformed JSON.
std::uint64_t json_tree_bytes(std::string_view text);

/// Reads and parses a file. Throws InputError when it cannot be read or parsed.
Json load_json_file(const std::string& path);

/// A read-only view of one value in a parsed document, with its file name and JSON path
/// (e.g. `tasks[2].wcet_by_units[3]`). Accessors throw InputError naming both.
/// The viewed document must outlive the node.
class JsonNode {
 public:
  JsonNode(const Json& value, std::string file, std::string path = {});

  const Json& json() const noexcept { return *_value; }
  const std::string& file() const noexcept { return _file; }
  /// The JSON path; "" for the top level.
  const std::string& path() const noexcept { return _path; }

  /// Throws InputError "FILE: PATH = VALUE: PROBLEM" about this value.
  [[noreturn]] void fail(const std::string& problem) const;

  bool is_object() const noexcept { return _value->is_object(); }
  bool is_array() const noexcept { return _value->is_array(); }
  bool is_string() const noexcept { return _value->is_string(); }
  bool is_number() const noexcept { return _value->is_number(); }

  /// Requires an object whose keys are all in `allowed`; an unknown key is an error with a
  /// "did you mean" hint.
  void expect_object(std::initializer_list<std::string_view> allowed) const;
  /// The value under `key`; an error if missing.
  JsonNode at(std::string_view key) const;
  /// The value under `key`, or nullopt if absent; an explicit null is an error (InputError).
  std::optional<JsonNode> find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key).has_value(); }

  /// The elements of an array (an error if not an array).
  std::vector<JsonNode> items() const;

  std::string as_string() const;
  /// A task's name: a non-empty string without control characters (C0, DEL, C1) or Unicode
  /// direction controls, which would break or disguise the text tables it is printed in.
  std::string as_name() const;
  /// A label (an examiner config's name, an instance's or a kernel's label): as_name, but it may
  /// be empty.
  std::string as_label() const;
  bool as_bool() const;
  /// Any finite JSON number.
  double as_number() const;
  /// A JSON number with an integral value that fits in 64 bits.
  std::int64_t as_int() const;
  /// An integer within [lo, hi].
  std::int64_t as_int_in(std::int64_t lo, std::int64_t hi) const;
  /// A whole number in 0..2^64-1 (a seed: the command line's --seed takes the same range).
  std::uint64_t as_uint64() const;
  /// A number > 0 in `unit`, converted to nanoseconds with `rounding`; the result is > 0.
  Nanos as_positive_time(TimeUnit unit, Rounding rounding) const;
  /// A number >= 0 in `unit`, converted to nanoseconds with `rounding`.
  Nanos as_nonnegative_time(TimeUnit unit, Rounding rounding) const;

  /// A short rendering of the value for messages (at most ~60 characters).
  std::string brief() const;

 private:
  JsonNode child(const Json& value, std::string path) const;

  const Json* _value;
  std::string _file;
  std::string _path;
};

/// Reads the optional top-level "time_unit" of a document (default `fallback`).
TimeUnit read_time_unit(const JsonNode& root, TimeUnit fallback = TimeUnit::us);

/// Requires the top-level "format" to equal `expected` (e.g. "gpurt/smlp@1").
void expect_format(const JsonNode& root, std::string_view expected);

/// The bits of a hexadecimal number written without "0x" (`digits` of `node`'s string): bit i of
/// the result is bit i of the number (the last digit holds bits 0..3). Fails at `node` naming a
/// character that is not a hexadecimal digit.
std::vector<bool> hex_bits(const JsonNode& node, std::string_view digits);

/// Edit distance, for "did you mean" hints.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace gpurt
