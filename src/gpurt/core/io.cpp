#include "gpurt/core/io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace fs = std::filesystem;

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(path, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path, "read error");
  return buffer.str();
}

namespace {

std::string temporary_name(const std::string& path) { return path + ".tmp." + std::to_string(::getpid()); }

// Writes `content` to `temporary`; removes it and throws on failure.
void write_temporary(const std::string& path, const std::string& temporary, std::string_view content) {
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(path + ": cannot write: " + std::strerror(errno));
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.flush();
  if (!out) {
    out.close();
    std::remove(temporary.c_str());
    throw Error(path + ": write failed");
  }
}

// The folder a file path lies in ("." for a bare name).
fs::path folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

bool writable_directory(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && ::access(dir.c_str(), W_OK | X_OK) == 0;
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  const std::string temporary = temporary_name(path);
  write_temporary(path, temporary, content);
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    std::remove(temporary.c_str());
    throw Error(path + ": cannot rename into place: " + std::strerror(saved));
  }
}

void write_files_atomically(const std::vector<OutputFile>& files) {
  std::vector<std::string> temporaries;
  const auto remove_temporaries = [&temporaries](std::size_t from) {
    for (std::size_t i = from; i < temporaries.size(); ++i) std::remove(temporaries[i].c_str());
  };
  try {
    for (const auto& [path, content] : files) {
      temporaries.push_back(temporary_name(path));
      write_temporary(path, temporaries.back(), content);
    }
  } catch (...) {
    temporaries.pop_back();  // write_temporary removed its own file
    remove_temporaries(0);
    throw;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::rename(temporaries[i].c_str(), files[i].first.c_str()) != 0) {
      const int saved = errno;
      remove_temporaries(i);
      throw Error(files[i].first + ": cannot rename into place: " + std::strerror(saved));
    }
  }
}

void check_output_file(const std::string& path, const std::string& option) {
  const auto fail = [&](const std::string& problem) {
    throw InputError("command line", option, path, problem);
  };
  if (path.empty()) fail("is empty");
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail("is a folder; give a file name");
  const fs::path folder = folder_of(path);
  if (!fs::exists(folder, ec)) fail("folder " + folder.string() + " does not exist");
  if (!fs::is_directory(folder, ec)) fail(folder.string() + " is not a folder");
  if (!writable_directory(folder)) fail("folder " + folder.string() + " is not writable");
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) fail("exists and is not a regular file");
}

void check_output_dir(const std::string& dir, const std::string& option) {
  const auto fail = [&](const std::string& problem) {
    throw InputError("command line", option, dir, problem);
  };
  if (dir.empty()) fail("is empty");
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) fail("exists and is not a folder");
    if (!writable_directory(dir)) fail("folder is not writable");
    return;
  }
  // Missing: the nearest existing ancestor must be a writable folder (it is created there).
  fs::path ancestor = fs::path(dir).parent_path();
  while (!ancestor.empty() && !fs::exists(ancestor, ec)) ancestor = ancestor.parent_path();
  if (ancestor.empty()) ancestor = ".";
  if (!fs::is_directory(ancestor, ec)) fail(ancestor.string() + " exists and is not a folder");
  if (!writable_directory(ancestor)) fail("cannot be created: " + ancestor.string() + " is not writable");
}

}  // namespace gpurt
