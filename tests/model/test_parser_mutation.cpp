// Property: the file readers either accept an input or throw InputError; never crash, never
// throw anything else. Seeded byte- and structure-level mutations of the bundled examples
// (the libFuzzer target in fuzz/ explores further; this runs in every CI build, sanitized too).
#include <gtest/gtest.h>

#include "gpurt/core/error.hpp"
#include "gpurt/core/io.hpp"
#include "gpurt/core/rng.hpp"
#include "gpurt/model/scenario.hpp"
#include "gpurt/model/smlp_task.hpp"

using namespace gpurt;

namespace {

std::string mutate(std::string text, Rng& rng) {
  static const char* tokens[] = {"-1",
                                 "0",
                                 "1e400",
                                 "null",
                                 "[]",
                                 "{}",
                                 "\"x\"",
                                 "true",
                                 ",",
                                 ":",
                                 "\"rho\"",
                                 "1.5",
                                 "18446744073709551616",
                                 "-0",
                                 "\"\\u0000\""};
  const int edits = static_cast<int>(rng.uniform_int(1, 4));
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const auto pos = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(text.size()) - 1));
    switch (rng.uniform_int(0, 3)) {
      case 0:
        text.erase(pos, static_cast<std::size_t>(rng.uniform_int(1, 8)));
        break;
      case 1:
        text[pos] = static_cast<char>(rng.uniform_int(0, 255));
        break;
      case 2:
        text.insert(pos, tokens[rng.uniform_int(0, std::size(tokens) - 1)]);
        break;
      default: {  // replace a number-looking run with a token
        std::size_t end = pos;
        while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
          ++end;
        text.replace(pos, end - pos, tokens[rng.uniform_int(0, std::size(tokens) - 1)]);
      }
    }
  }
  return text;
}

}  // namespace

// Feeds `count` mutations of `seed_text` to `read`; returns {accepted, rejected}.
template <class Read>
std::pair<int, int> mutate_and_read(const std::string& seed_text, std::uint64_t seed, int count,
                                    Read&& read) {
  Rng rng(seed);
  int accepted = 0, rejected = 0;
  for (int i = 0; i < count; ++i) {
    const std::string text = mutate(seed_text, rng);
    try {
      read(text);
      ++accepted;
    } catch (const InputError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("m.json: ", 0), 0u) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected exception " << e.what() << " for input:\n" << text;
    }
  }
  return {accepted, rejected};
}

TEST(ParserMutation, SmlpReaderAcceptsOrRejectsCleanly) {
  const std::string seed_text = read_text_file(GPURT_SOURCE_DIR "/examples/smlp/cufft-rtx3060ti.json");
  const auto [accepted, rejected] = mutate_and_read(seed_text, 2024, 4000, [](const std::string& text) {
    (void)parse_smlp_system(parse_json(text, "m.json"), "m.json");
  });
  // Both outcomes must occur, or the mutator is not exercising the reader.
  EXPECT_GT(accepted, 50);
  EXPECT_GT(rejected, 1000);
}

TEST(ParserMutation, ScenarioReaderAcceptsOrRejectsCleanly) {
  const Platform& p = *find_platform_preset("jetson-tx2");
  for (const char* example : {"/examples/sim/cuda_free.json", "/examples/sim/stream_fifo.json"}) {
    const std::string seed_text = read_text_file(std::string(GPURT_SOURCE_DIR) + example);
    const auto [accepted, rejected] = mutate_and_read(seed_text, 7, 3000, [&](const std::string& text) {
      (void)parse_scenario(parse_json(text, "m.json"), "m.json", p);
    });
    EXPECT_GT(accepted, 20) << example;
    EXPECT_GT(rejected, 1000) << example;
  }
}
