// Property: the gpurt/rtgpu@1 and gpurt/fifo@1 readers accept an input or throw InputError, and
// every accepted system analyses without an exception. Seeded mutations of the bundled examples.
#include <gtest/gtest.h>

#include <cctype>

#include "gpurt/analysis/fifo.hpp"
#include "gpurt/analysis/rtgpu.hpp"
#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/core/rng.hpp"

namespace gpurt {
namespace {

std::string mutate(std::string text, Rng& rng) {
  static const char* tokens[] = {
      "-1", "0",   "1e400",  "null",   "[]",  "{}",  "\"x\"", "true",
      ",",  "0.5", "[1, 2]", "[2, 1]", "1e9", "100", "3",     "18446744073709551616"};
  const int edits = static_cast<int>(rng.uniform_int(1, 3));
  for (int e = 0; e < edits && !text.empty(); ++e) {
    auto pos = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(text.size()) - 1));
    const char* token = tokens[rng.uniform_int(0, std::size(tokens) - 1)];
    switch (rng.uniform_int(0, 2)) {
      case 0:
        text.erase(pos, static_cast<std::size_t>(rng.uniform_int(1, 6)));
        break;
      case 1:
        text.insert(pos, token);
        break;
      default: {  // replace the next number with a token
        while (pos < text.size() && !std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
        std::size_t end = pos;
        while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
          ++end;
        if (pos < text.size()) text.replace(pos, end - pos, token);
      }
    }
  }
  return text;
}

template <class Parse, class Analyse>
void run(const std::string& example, std::uint64_t seed, Parse parse, Analyse analyse) {
  const std::string original = read_text_file(example);
  Rng rng(seed);
  int accepted = 0, rejected = 0;
  // 4,000 mutations: about one in thirty is accepted (an explicit null is refused since 2026-11-27),
  // and the accepted ones must be enough to exercise the analyses.
  for (int i = 0; i < 4000; ++i) {
    const std::string text = mutate(original, rng);
    try {
      const auto system = parse(parse_json(text, "m.json"));
      ++accepted;
      try {
        analyse(system);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "analysis threw " << e.what() << " for an accepted input:\n" << text;
      }
    } catch (const InputError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("m.json: ", 0), 0u) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected exception " << e.what() << " for input:\n" << text;
    }
  }
  EXPECT_GT(accepted, 100);
  EXPECT_GT(rejected, 500);
}

TEST(RtgpuMutation, ReaderAndAnalysisNeverCrash) {
  run(
      GPURT_SOURCE_DIR "/examples/rtgpu/two-tasks.json", 7,
      [](const Json& j) { return parse_rtgpu_system(j, "m.json"); },
      [](const RtgpuSystem& s) {
        for (RtgpuMethod m : {RtgpuMethod::rtgpu, RtgpuMethod::self_suspension, RtgpuMethod::stgm}) {
          (void)analyse_rtgpu(s, {m, RtgpuSearch::exact});
        }
      });
}

TEST(FifoMutation, ReaderNeverCrashes) {
  run(
      GPURT_SOURCE_DIR "/examples/fifo/example2.json", 8,
      [](const Json& j) { return parse_fifo_system(j, "m.json"); },
      [](const FifoSystem& s) { (void)analyse_fifo(s); });
}

}  // namespace
}  // namespace gpurt
