// Small pieces shared by the SVG writers (timelines, charts).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace gpurt {

/// Ten distinguishable colours (the usual categorical palette).
inline constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/// The length of the valid UTF-8 sequence at the start of `s` (1 to 4), or 0 when it is not one
/// (a stray continuation byte, a truncated or overlong sequence, a surrogate, beyond U+10FFFF).
inline std::size_t utf8_sequence(std::string_view s) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // beyond U+10FFFF
  } else {
    return 0;
  }
  if (s.size() < n || b(1) < lo || b(1) > hi) return 0;
  for (std::size_t i = 2; i < n; ++i)
    if ((b(i) & 0xC0) != 0x80) return 0;
  return n;
}

/// `s` with &, <, > and " replaced by their entities, and what XML 1.0 does not allow as U+FFFD:
/// the control characters (all below 0x20 but tab, newline and carriage return) and bytes that
/// are not UTF-8 (a Latin-1 CSV header, a title in another encoding). A title or label with one
/// would otherwise make the whole SVG unreadable.
inline std::string xml_escape(std::string_view s) {
  constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    const std::size_t n = utf8_sequence(s.substr(i));
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    ++i;
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += kReplacement;
        else
          out += c;
    }
  }
  return out;
}

/// `label` escaped, cut to `chars` characters (at a UTF-8 character boundary) with "…" when it
/// is longer, the whole label then in a tooltip: text that would run past its room in a picture.
inline std::string clipped_text(std::string_view label, std::size_t chars) {
  std::size_t count = 0, cut = 0;
  for (std::size_t i = 0; i < label.size();) {
    const std::size_t n = std::max<std::size_t>(1, utf8_sequence(label.substr(i)));
    if (count == chars - 1) cut = i;
    if (++count > chars)
      return "<tspan>" + xml_escape(label.substr(0, cut)) + "…<title>" + xml_escape(label) +
             "</title></tspan>";
    i += n;
  }
  return xml_escape(label);
}

}  // namespace gpurt
