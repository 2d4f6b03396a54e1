// File input and output. Output files are written to a temporary name in the same folder and
// renamed, so an interrupted run never leaves half a file (DESIGN.md "Bad input").
#pragma once

#include <string>
#include <string_view>

namespace gpurt {

/// The whole content of a file. Throws InputError naming the file when it cannot be read.
std::string read_text_file(const std::string& path);

/// Writes `content` to `path` atomically (temporary file, then rename). Throws gpurt::Error.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace gpurt
