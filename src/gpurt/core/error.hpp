// Typed errors. Library code throws these; only the CLI's main turns them into messages and
// exit codes (STYLE.md: no printing or exit() in library code).
#pragma once

#include <stdexcept>
#include <string>

namespace gpurt {

/// Base of every error gpurt throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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

}  // namespace gpurt
