// File input and output. Output files are written to a temporary name in the same folder and
// renamed, so an interrupted run never leaves half a file (DESIGN.md "Bad input").
//
// Commands with several outputs (result folder, --svg, --perfetto, --meta, ...) check every
// output path before they compute or write anything (check_output_file, check_output_dir), and
// then write all their files or none (write_files_atomically).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpurt {

/// The most bytes read_text_file reads unless the environment variable GPURT_MAX_INPUT_BYTES
/// says otherwise: 256 MiB.
inline constexpr std::int64_t kDefaultMaxInputBytes = std::int64_t{256} << 20;

/// The input limit in force: GPURT_MAX_INPUT_BYTES when set (InputError when it is no whole
/// number >= 1), else kDefaultMaxInputBytes. A command that writes a file gpurt reads back
/// checks its size against it, so that it never writes what it would refuse to read.
std::int64_t max_input_bytes();

/// The most memory a JSON input's parsed tree may take, as parse_json reckons it
/// (json_tree_bytes) before building it, unless GPURT_MAX_JSON_TREE_BYTES says otherwise: 2 GiB.
/// Short values take many times their text (a 250 MB file of "[[],[],..." took 5.7 GB); gpurt's
/// own files take 1-10 times theirs (the compact ones with many keys most).
inline constexpr std::int64_t kDefaultMaxJsonTreeBytes = std::int64_t{2} << 30;
std::int64_t max_json_tree_bytes();

/// One spelling of the file `path` names, for comparing paths: absolute, with the links, "."
/// and ".." of its existing part resolved (two names of one file give one key).
std::filesystem::path output_key(const std::string& path);

/// Whether `key` lies in the folder `folder_key`, or is it (both from output_key).
bool key_inside(const std::filesystem::path& key, const std::filesystem::path& folder_key);

/// How long read_text_file waits for a FIFO's first bytes (or its writer's end) before refusing
/// it: a FIFO nothing writes to would otherwise block the run for ever.
inline constexpr int kFifoWaitSeconds = 10;

/// The whole content of a file ("-": standard input). Throws InputError naming the file when it
/// cannot be read, holds more than the input limit (kDefaultMaxInputBytes, GPURT_MAX_INPUT_BYTES)
/// or is a FIFO nothing writes to within kFifoWaitSeconds.
std::string read_text_file(const std::string& path);

/// Writes `content` to `path` atomically (temporary file, then rename; through a symbolic link,
/// to the file it names). Throws gpurt::Error.
void write_file_atomically(const std::string& path, std::string_view content);

/// One output file: its path and its whole content.
using OutputFile = std::pair<std::string, std::string>;

/// Writes every file to a temporary name beside it, then renames them all into place: when any
/// write fails, every temporary is removed and no file was replaced. Throws gpurt::Error naming
/// the path that failed.
void write_files_atomically(const std::vector<OutputFile>& files);

/// The longest output file name (the last path component) check_output_file accepts, in bytes.
inline constexpr std::size_t kMaxOutputFileName = 240;

/// Throws InputError "OPTION = PATH: ..." (exit 2) when `path`'s file name is longer than
/// kMaxOutputFileName; check_output_file includes it, for outputs whose folder may not exist yet.
void check_output_file_name(const std::string& path, const std::string& option);

/// Checks that `path` can be written as an output file: it is not a folder, and its folder
/// exists and is a writable directory. Throws InputError "OPTION = PATH: PROBLEM" (exit 2).
void check_output_file(const std::string& path, const std::string& option);

/// Checks that `dir` can be an output folder: an existing writable directory, or a path that
/// does not exist yet whose nearest existing ancestor is a writable directory. Throws
/// InputError "OPTION = DIR: PROBLEM" when it names a file or cannot be created there.
void check_output_dir(const std::string& dir, const std::string& option);

/// Refuses an output file that is the output folder `dir` or one of its ancestors (by any path),
/// which the folder's creation would turn into a folder. Throws InputError "FILE_OPTION = FILE:
/// is the DIR_OPTION folder DIR or one above it".
void check_file_outside_dir(const std::string& file, const std::string& file_option, const std::string& dir,
                            const std::string& dir_option);

/// Refuses an output file that is one of `inputs` (the same file, by any path). Throws
/// InputError "OPTION = PATH: is also an input".
void check_output_not_input(const std::string& output, const std::vector<std::string>& inputs,
                            const std::string& option);

/// Refuses an output file inside the input folder `folder` (a later run would read it).
void check_output_outside(const std::string& output, const std::string& folder, const std::string& option);

/// Refuses two outputs (option, path) naming the same file; empty paths are not outputs.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

}  // namespace gpurt
