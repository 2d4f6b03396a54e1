#include "gpurt/core/error.hpp"

#include <utility>

#include <fmt/format.h>

namespace gpurt {

namespace {
// A file name, path or value is shown whole up to 200 bytes: a 10 MB line of a malformed CSV or
// a 5 MB unknown key would otherwise flood the terminal (InputError keeps each whole). The cut
// backs off to the start of a UTF-8 character, so it never splits one.
std::string shown(const std::string& text) {
  constexpr std::size_t kShown = 200;
  if (text.size() <= kShown) return text;
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "... (" + std::to_string(text.size()) + " bytes)";
}

std::string without_nul(const std::string& text) {
  if (text.find('\0') == std::string::npos) return text;
  std::string out;
  out.reserve(text.size() + 8);
  for (const char c : text)
    if (c == '\0')
      out += "\\x00";
    else
      out += c;
  return out;
}

std::string compose(const std::string& file, const std::string& path, const std::string& value,
                    const std::string& problem) {
  std::string out = file.empty() ? std::string("<input>") : shown(file);
  out += ": ";
  if (!path.empty()) {
    out += shown(path);
    if (!value.empty()) out += " = " + shown(value);
    out += ": ";
  }
  out += problem;
  return out;
}
}  // namespace

Error::Error(const std::string& what) : std::runtime_error(without_nul(what)) {}

InputError::InputError(std::string file, std::string path, std::string value, std::string problem)
    : Error(compose(file, path, value, problem)),
      _file(std::move(file)),
      _path(std::move(path)),
      _value(std::move(value)),
      _problem(std::move(problem)) {}

InputError::InputError(std::string file, std::string problem)
    : Error(compose(file, "", "", problem)), _file(std::move(file)), _problem(std::move(problem)) {}

std::size_t control_character_at(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : static_cast<unsigned char>(0);
  };
  if (i >= text.size()) return 0;
  const unsigned char c = at(0);
  if (c < 0x20 || c == 0x7F) return 1;
  if (c == 0xC2 && at(1) >= 0x80 && at(1) <= 0x9F) return 2;
  const bool bidi =
      c == 0xE2 &&
      ((at(1) == 0x80 && ((at(2) >= 0x8E && at(2) <= 0x8F) || (at(2) >= 0xAA && at(2) <= 0xAE))) ||
       (at(1) == 0x81 && at(2) >= 0xA6 && at(2) <= 0xA9));
  return bidi ? 3 : 0;
}

std::size_t utf8_character_at(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : static_cast<unsigned char>(0);
  };
  const auto cont = [&](std::size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return at(k) >= lo && at(k) <= hi;
  };
  if (i >= text.size()) return 0;
  const unsigned char c = at(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;  // no surrogates
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = control_character_at(text, i);
    if (n == 0 || text[i] == '\n' || text[i] == '\t') {
      // A byte that starts no UTF-8 character (a Latin-1 file's, a cut sequence) is escaped as
      // a control character is: a terminal would show it as garbage or take it as a command.
      const std::size_t len = utf8_character_at(text, i);
      if (len == 0) {
        out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
        ++i;
      } else {
        out.append(text.substr(i, len));
        i += len;
      }
      continue;
    }
    for (std::size_t k = 0; k < n; ++k, ++i)
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
  }
  return out;
}

}  // namespace gpurt
