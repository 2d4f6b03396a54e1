// Typed errors. Library code throws these; only the CLI's main turns them into messages and
// exit codes (STYLE.md: no printing or exit() in library code).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpurt {

/// Base of every error gpurt throws on purpose.
class Error : public std::runtime_error {
 public:
  /// A NUL byte in the message (a value quoted from a binary file) is written \x00: what() is a
  /// C string, and the message ended there.
  explicit Error(const std::string& what);
  explicit Error(const char* what) : Error(std::string(what)) {}
};

/// Bad input: a file that cannot be read, is not JSON, or holds a value the model rejects.
/// what() reads "FILE: PATH = VALUE: PROBLEM", e.g.
/// "tasks.json: tasks[2].wcet_by_units[3] = -5: must be > 0". The CLI exits 2 on it.
class InputError : public Error {
 public:
  InputError(std::string file, std::string path, std::string value, std::string problem);
  /// An error about the file as a whole (unreadable, not JSON): "FILE: PROBLEM".
  InputError(std::string file, std::string problem);

  const std::string& file() const noexcept { return _file; }
  const std::string& path() const noexcept { return _path; }
  const std::string& value() const noexcept { return _value; }
  const std::string& problem() const noexcept { return _problem; }

 private:
  std::string _file, _path, _value, _problem;
};

/// The length in bytes of the control character that starts at byte `i` of `text`: C0 and DEL
/// (1 byte), C1 as UTF-8 (U+0080..U+009F, 2 bytes), Unicode bidirectional marks, embeddings and
/// isolates (U+200E/F, U+202A..U+202E, U+2066..U+2069, 3 bytes); 0 when none starts there.
std::size_t control_character_at(std::string_view text, std::size_t i);

/// The length of the UTF-8 character that starts at byte `i` (1..4; overlong forms and
/// surrogates are not characters); 0 when the bytes there start none.
std::size_t utf8_character_at(std::string_view text, std::size_t i);

/// `text` with the bytes of every control character (control_character_at) except newline and
/// tab, and every byte that starts no UTF-8 character, written as \xNN: a message that quotes a
/// hostile file name or value cannot move the terminal's cursor, clear its screen or reorder
/// what it shows, and stays valid UTF-8. The CLI prints every error through it.
std::string printable(std::string_view text);

}  // namespace gpurt
