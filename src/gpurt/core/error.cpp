#include "gpurt/core/error.hpp"

#include <utility>

namespace gpurt {

namespace {
std::string compose(const std::string& file, const std::string& path, const std::string& value,
                    const std::string& problem) {
  std::string out = file.empty() ? std::string("<input>") : file;
  out += ": ";
  if (!path.empty()) {
    out += path;
    // A value is shown whole up to 200 bytes: a 10 MB line of a malformed CSV would otherwise
    // flood the terminal (InputError::value() keeps it whole).
    constexpr std::size_t kShown = 200;
    if (!value.empty())
      out += " = " + (value.size() <= kShown
                          ? value
                          : value.substr(0, kShown) + "... (" + std::to_string(value.size()) + " bytes)");
    out += ": ";
  }
  out += problem;
  return out;
}
}  // namespace

InputError::InputError(std::string file, std::string path, std::string value, std::string problem)
    : Error(compose(file, path, value, problem)),
      _file(std::move(file)),
      _path(std::move(path)),
      _value(std::move(value)),
      _problem(std::move(problem)) {}

InputError::InputError(std::string file, std::string problem)
    : Error(compose(file, "", "", problem)), _file(std::move(file)), _problem(std::move(problem)) {}

}  // namespace gpurt
