// Small pieces shared by the SVG writers (timelines, charts).
#pragma once

#include <string>
#include <string_view>

namespace gpurt {

/// Ten distinguishable colours (the usual categorical palette).
inline constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/// `s` with &, <, > and " replaced by their entities, and the control characters XML 1.0 does
/// not allow (all below 0x20 but tab, newline and carriage return) as U+FFFD: a title or label
/// with one would otherwise make the whole SVG unreadable.
inline std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
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
          out += "\xEF\xBF\xBD";  // U+FFFD in UTF-8
        else
          out += c;
    }
  }
  return out;
}

}  // namespace gpurt
