#include "gpurt/core/io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "gpurt/core/error.hpp"

namespace gpurt {

namespace fs = std::filesystem;

namespace {
// A byte limit from the environment variable `name`, else `fallback`.
std::int64_t byte_limit(const char* name, std::int64_t fallback) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(env, &end, 10);
  if (errno != 0 || end == env || *end != '\0' || v < 1)
    throw InputError("environment", name, env, "must be a whole number of bytes >= 1");
  return v;
}
}  // namespace

std::int64_t max_input_bytes() { return byte_limit("GPURT_MAX_INPUT_BYTES", kDefaultMaxInputBytes); }

std::int64_t max_json_tree_bytes() {
  return byte_limit("GPURT_MAX_JSON_TREE_BYTES", kDefaultMaxJsonTreeBytes);
}

namespace {
// Whether the open FIFO `fd` is a named one (a path in a file system) rather than an anonymous
// pipe, which Linux names "pipe:[inode]" in /proc/self/fd.
bool named_fifo(int fd) {
  char target[64] = {};
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
  return !(n >= 5 && std::string_view(target, static_cast<std::size_t>(n)).starts_with("pipe:"));
}
}  // namespace

std::string read_text_file(const std::string& path) {
  // "-" is standard input, as the examiner reads its config under that name (./-: a file).
  const bool stdin_input = path == "-";
  int fd = STDIN_FILENO;
  if (!stdin_input) {
    // O_NONBLOCK: opening a FIFO no process writes to returns at once (a plain open would wait
    // for a writer for ever); the poll below then waits a bounded time for its first bytes. A
    // pipe with a writer (`<(cat file)`) reads as before, blocking once the open is done.
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  }
  struct Closer {
    int fd;
    bool owned;
    ~Closer() {
      if (owned) ::close(fd);
    }
  } closer{fd, !stdin_input};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(path, "is a directory, not a file");
  const bool fifo = S_ISFIFO(st.st_mode);
  if (!stdin_input) {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
      throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
  }
  if (fifo && !stdin_input && named_fifo(fd)) {
    // A FIFO opened before any writer: Linux reports it readable only once a writer has written
    // or come and gone (a read before that would find end of file), so wait for that, bounded.
    // An anonymous pipe (`<(command)`, /dev/stdin) has its writer already: it is read blocking,
    // however slow the writer.
    pollfd ready{fd, POLLIN, 0};
    int got = 0;
    do got = ::poll(&ready, 1, kFifoWaitSeconds * 1000);
    while (got < 0 && errno == EINTR);
    if (got < 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
    if (got == 0)
      throw InputError(
          path, fmt::format("is a FIFO (named pipe) that nothing wrote to within {} s: nothing to read",
                            kFifoWaitSeconds));
  }
  // Read in pieces up to the limit: a device such as /dev/zero or an enormous file stops here
  // instead of filling the memory.
  const std::int64_t limit = max_input_bytes();
  std::string text;
  std::vector<char> piece(1 << 16);
  while (true) {
    const ssize_t got = ::read(fd, piece.data(), piece.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {  // a standard input left non-blocking by its owner
        pollfd ready{fd, POLLIN, 0};
        ::poll(&ready, 1, -1);
        continue;
      }
      throw InputError(path, std::string("read error: ") + std::strerror(errno));
    }
    if (got == 0) break;
    if (static_cast<std::int64_t>(text.size()) + got > limit) {
      throw InputError(
          path, fmt::format("is larger than {} bytes (GPURT_MAX_INPUT_BYTES raises the limit)", limit));
    }
    text.append(piece.data(), static_cast<std::size_t>(got));
  }
  return text;
}

namespace {

std::string temporary_name(const std::string& path) { return path + ".tmp." + std::to_string(::getpid()); }

// Writes `content` to `temporary`; removes it and throws on failure. The temporary is created
// anew (O_EXCL) and never through a link (O_NOFOLLOW): a link planted at its name made the write
// land on the file it pointed at. A stale file or link of that name (a killed run of the same
// process id) is removed first; removing a link leaves the file it points at alone.
void write_temporary(const std::string& path, const std::string& temporary, std::string_view content) {
  ::unlink(temporary.c_str());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) throw Error(path + ": cannot write: " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int saved = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(temporary.c_str());
      throw Error(path + ": write failed: " + std::strerror(saved));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    const int saved = errno;
    ::unlink(temporary.c_str());
    throw Error(path + ": write failed: " + std::strerror(saved));
  }
}

// One spelling of the file `path` names, for comparing paths: absolute first, since
// weakly_canonical leaves a relative path relative when its first part does not exist yet
// ("b.csv" and "./b.csv" and "/abs/b.csv" must compare equal), then with the links, "." and ".."
// of its existing part resolved.
fs::path same_file_key(const std::string& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  if (ec) return fs::path(path).lexically_normal();
  const fs::path key = fs::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : key;
}

// The folder a file path lies in ("." for a bare name).
fs::path folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// A folder a file can be created in. access() alone passes /proc and /sys for root (the
// permission bits do not bind root, and neither is mounted read-only), where creating the
// file then fails after the work: a file is created and removed again to be sure.
bool writable_directory(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || ::access(dir.c_str(), W_OK | X_OK) != 0) return false;
  std::string probe = (dir / ".gpurt-write-check-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return false;
  ::close(fd);
  ::unlink(probe.c_str());
  return true;
}

// Where writing `path` lands: through a symbolic link to the file it names (replacing the link
// itself with a new file would leave the file it points at untouched).
std::string write_target(const std::string& path) {
  std::error_code ec;
  if (!fs::is_symlink(path, ec)) return path;
  const fs::path target = fs::weakly_canonical(path, ec);
  return ec ? path : target.string();
}

}  // namespace

fs::path output_key(const std::string& path) { return same_file_key(path); }

bool key_inside(const fs::path& key, const fs::path& folder_key) {
  fs::path dir = folder_key;
  if (!dir.has_filename()) dir = dir.parent_path();  // "mb/": compare without the empty last element
  const auto d = std::mismatch(dir.begin(), dir.end(), key.begin(), key.end()).first;
  return d == dir.end();
}

void write_file_atomically(const std::string& given, std::string_view content) {
  const std::string path = write_target(given);
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
  std::vector<std::string> targets;
  for (const auto& file : files) targets.push_back(write_target(file.first));
  // Refused before anything is written: two files for one target (they would share a temporary
  // name, and the second rename would fail after the first landed) and a target that is a folder
  // (its rename would fail after the others). Commands check their outputs before they run
  // (check_distinct_outputs, check_output_file); this is the last line.
  {
    std::vector<std::pair<std::string, std::size_t>> seen;
    std::error_code ec;
    for (std::size_t i = 0; i < targets.size(); ++i) {
      if (fs::is_directory(targets[i], ec)) throw Error(files[i].first + ": cannot write: is a folder");
      seen.emplace_back(same_file_key(targets[i]).string(), i);
    }
    std::sort(seen.begin(), seen.end());
    for (std::size_t k = 1; k < seen.size(); ++k) {
      if (seen[k].first == seen[k - 1].first) {
        throw Error(files[seen[k].second].first + ": written twice in one run (also as " +
                    files[seen[k - 1].second].first + ")");
      }
    }
  }
  try {
    for (std::size_t i = 0; i < files.size(); ++i) {
      temporaries.push_back(temporary_name(targets[i]));
      write_temporary(targets[i], temporaries.back(), files[i].second);
    }
  } catch (...) {
    temporaries.pop_back();  // write_temporary removed its own file
    remove_temporaries(0);
    throw;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::rename(temporaries[i].c_str(), targets[i].c_str()) != 0) {
      const int saved = errno;
      remove_temporaries(i);
      throw Error(files[i].first + ": cannot rename into place: " + std::strerror(saved));
    }
  }
}

void check_output_file_name(const std::string& path, const std::string& option) {
  // Linux's file names are at most 255 bytes, and the temporary file an atomic write makes beside
  // the output adds ".tmp.PID" (at most 12): refused here, not when the file is written (exit 1).
  if (const std::size_t name = fs::path(path).filename().string().size(); name > kMaxOutputFileName)
    throw InputError(
        "command line", option, path,
        fmt::format("has a file name of {} bytes; at most {} (the temporary file written beside it "
                    "needs the rest of the system's 255)",
                    name, kMaxOutputFileName));
  // Every folder on the way is a name too (at most 255 bytes), and the whole path at most 4095:
  // refused before anything is written (a result file's log_name may name sub-folders).
  for (const fs::path& part : fs::path(path).parent_path())
    if (part.string().size() > 255)
      throw InputError("command line", option, path,
                       fmt::format("has a folder name of {} bytes; at most 255", part.string().size()));
  // The temporary file beside it adds ".tmp.PID" (at most 12 bytes) to a path of at most 4095.
  if (path.size() > 4095 - 12)
    throw InputError("command line", option, path,
                     fmt::format("is {} bytes long; at most {} (a path is at most 4095 with the temporary "
                                 "file's 12 more)",
                                 path.size(), 4095 - 12));
}

void check_output_file(const std::string& given, const std::string& option) {
  const auto fail = [&](const std::string& problem) {
    throw InputError("command line", option, given, problem);
  };
  if (given.empty()) fail("is empty");
  std::error_code ec;
  // Through a symbolic link: the file it names must pass the same checks (a link to a device or
  // a pipe is refused like the device itself).
  const std::string path = write_target(given);
  if (fs::is_symlink(path, ec)) {
    // A dangling link, a loop, or /dev/stdout onto a pipe (-> /proc/self/fd/1 -> "pipe:[…]").
    const fs::path last = fs::read_symlink(path, ec);
    fail(ec ? std::string("is a symbolic link that does not resolve")
            : fmt::format("is a symbolic link to {}, which leads to no file (missing, a loop, or a pipe)",
                          last.string()));
  }
  if (fs::is_directory(path, ec)) fail("is a folder; give a file name");
  check_output_file_name(path, option);
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
  if (fs::is_symlink(fs::symlink_status(dir, ec)) && !fs::exists(dir, ec))
    fail("is a symbolic link that leads to no folder (it cannot be created through the link)");
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

void check_file_outside_dir(const std::string& file, const std::string& file_option, const std::string& dir,
                            const std::string& dir_option) {
  const fs::path f = same_file_key(file);
  fs::path d = same_file_key(dir);
  if (!d.has_filename()) d = d.parent_path();
  const auto [fi, di] = std::mismatch(f.begin(), f.end(), d.begin(), d.end());
  if (fi == f.end())
    throw InputError("command line", file_option, file,
                     fmt::format("is the {} folder {} or one above it; give a file name", dir_option, dir));
}

void check_output_not_input(const std::string& output, const std::vector<std::string>& inputs,
                            const std::string& option) {
  std::error_code ec;
  if (!fs::exists(output, ec)) return;  // a new file cannot be an input
  for (const std::string& input : inputs) {
    if (fs::exists(input, ec) && fs::equivalent(output, input, ec) && !ec)
      throw InputError("command line", option, output, "is also an input (" + input + "); give another file");
  }
}

void check_output_outside(const std::string& output, const std::string& folder, const std::string& option) {
  if (folder.empty()) return;
  const fs::path out = same_file_key(output);
  fs::path dir = same_file_key(folder);
  if (!dir.has_filename()) dir = dir.parent_path();  // "mb/": compare without the empty last element
  const auto [d, o] = std::mismatch(dir.begin(), dir.end(), out.begin(), out.end());
  if (d == dir.end())
    throw InputError("command line", option, output,
                     "lies in the input folder " + folder + "; give another place");
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  // Each path resolved once, then sorted: comparing every pair resolved each path again, and
  // 1024 result files took 10-60 s of path look-ups before a run.
  std::vector<std::pair<fs::path, std::size_t>> keys;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (!outputs[i].second.empty()) keys.emplace_back(same_file_key(outputs[i].second), i);
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // The later of two outputs with one key is the one named (as when every pair was compared in
  // order); among several, the earliest later one.
  std::size_t worst = outputs.size(), first = outputs.size();
  for (std::size_t k = 1; k < keys.size(); ++k) {
    if (keys[k].first != keys[k - 1].first) continue;
    // Within a run of equal keys the indices ascend (stable sort): the run's first element is
    // the earlier output, each next one a repeat of it.
    if (keys[k].second < worst) {
      worst = keys[k].second;
      std::size_t r = k;
      while (r > 0 && keys[r - 1].first == keys[k].first) --r;
      first = keys[r].second;
    }
  }
  if (worst < outputs.size())
    throw InputError("command line", outputs[worst].first, outputs[worst].second,
                     "is also the file of " + outputs[first].first + "; give each output its own file");
}

}  // namespace gpurt
