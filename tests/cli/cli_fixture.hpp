// Running the `gpurt` command from tests as a user would: one fixture for every CLI test file.
// Each test gets a fresh temporary folder (removed afterwards) for its inputs and outputs.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "gpurt/core/io.hpp"
#include "gpurt/core/json.hpp"

namespace gpurt::test {

/// Exit status and captured output of one command.
struct Outcome {
  int code = -1;
  std::string out, err;
};

/// Runs `gpurt ARGS` through the shell (ARGS is shell words), stdout and stderr captured in
/// files under `dir`.
inline Outcome run_gpurt(const std::filesystem::path& dir, const std::string& args) {
  const std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  const int status = std::system((std::string(GPURT_CLI) + " " + args + " >" + out + " 2>" + err).c_str());
  Outcome r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text_file(out);
  r.err = read_text_file(err);
  return r;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    _dir = std::filesystem::temp_directory_path() /
           ("gpurt-cli-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    std::filesystem::remove_all(_dir);
    std::filesystem::create_directories(_dir);
  }
  void TearDown() override { std::filesystem::remove_all(_dir); }

  /// The path of `name` in the test's folder.
  std::string path(const std::string& name) const { return (_dir / name).string(); }
  /// Writes `text` to `name` in the test's folder; returns its path.
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(_dir / name) << text;
    return path(name);
  }
  std::string read(const std::string& name) const { return read_text_file(path(name)); }
  /// Writes the file `source` with its first `from` replaced by `to` to `name` in the test's
  /// folder; returns its path. Throws (failing the test) when `source` has no `from`.
  std::string write_edited(const std::string& name, const std::string& source, const std::string& from,
                           const std::string& to) {
    std::string text = read_text_file(source);
    const std::size_t at = text.find(from);
    if (at == std::string::npos) throw std::logic_error(source + " has no " + from);
    return write(name, text.replace(at, from.size(), to));
  }
  Outcome cli(const std::string& args) { return run_gpurt(_dir, args); }
  /// Runs `calibrated` and `ideal` (the same command, the second with --model ideal), each of
  /// which must exit 0 and print JSON naming its model; returns the two documents.
  std::pair<Json, Json> json_under_both_models(const std::string& calibrated, const std::string& ideal) {
    const Outcome c = cli(calibrated), i = cli(ideal);
    if (c.code != 0 || i.code != 0)
      throw std::logic_error("exit " + std::to_string(c.code) + "/" + std::to_string(i.code) + ": " + c.err +
                             i.err);
    std::pair<Json, Json> out{Json::parse(c.out), Json::parse(i.out)};
    EXPECT_EQ(out.first.at("model"), "calibrated");
    EXPECT_EQ(out.second.at("model"), "ideal");
    return out;
  }

  std::filesystem::path _dir;
};

}  // namespace gpurt::test
