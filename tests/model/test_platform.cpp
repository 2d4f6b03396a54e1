#include <gtest/gtest.h>

#include "gpurt/core/error.hpp"
#include "gpurt/model/platform.hpp"

using namespace gpurt;

namespace {
Platform parse(const std::string& text) {
  const Json doc = parse_json(text, "p.json");
  return parse_platform(JsonNode(doc, "p.json", "platform"));
}
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}
}  // namespace

TEST(Platform, EveryPresetNamedInTheIssueExistsAndIsValid) {
  for (const char* id : {"gtx1070", "rtx2080ti", "rtx3060ti", "gtx1080ti", "jetson-tx1", "jetson-tx2",
                         "radeon-vii", "h100", "h200"}) {
    const Platform* p = find_platform_preset(id);
    ASSERT_NE(p, nullptr) << id;
    EXPECT_NO_THROW(validate(*p)) << id;
  }
  EXPECT_EQ(platform_presets().size(), 9u);
  EXPECT_EQ(find_platform_preset("rtx4090"), nullptr);
}

TEST(Platform, UnitCountsMatchTheFftSmlpSeed) {
  // FFT/SMLP §IV-A: "15, 34, and 19 SM partitions" on the GTX 1070, RTX 2080 Ti, RTX 3060 Ti.
  EXPECT_EQ(find_platform_preset("gtx1070")->units(), 15);
  EXPECT_EQ(find_platform_preset("rtx2080ti")->units(), 34);
  EXPECT_EQ(find_platform_preset("rtx3060ti")->units(), 19);
  EXPECT_EQ(find_platform_preset("rtx3060ti")->sms, 38);
}

TEST(Platform, DocumentedSmCounts) {
  EXPECT_EQ(find_platform_preset("radeon-vii")->sms, 60);  // Dissertation §2.3
  EXPECT_EQ(find_platform_preset("radeon-vii")->shader_engines, 4);
  EXPECT_EQ(find_platform_preset("jetson-tx2")->sms, 2);  // Dissertation §2.3
  EXPECT_EQ(find_platform_preset("h100")->sms, 132);
  EXPECT_EQ(find_platform_preset("h200")->sms, 132);
  EXPECT_EQ(find_platform_preset("gtx1080ti")->sms, 28);
}

TEST(Platform, PresetByNameFullObjectAndPresetWithOverrides) {
  EXPECT_EQ(parse(R"("h100")").units(), 66);
  const Platform green = parse(R"({"preset": "h100", "partition_unit": 8, "id": "h100-gc"})");
  EXPECT_EQ(green.units(), 16);  // 132 / 8 = 16 whole groups; 4 SMs are left over
  EXPECT_EQ(green.sms, 132);
  const Platform custom = parse(R"({"name": "toy", "vendor": "nvidia", "sms": 4, "max_threads": 2048,
      "max_blocks": 32, "registers": 65536, "shared_memory": 49152})");
  EXPECT_EQ(custom.id, "toy");
  EXPECT_EQ(custom.units(), 4);
  EXPECT_EQ(custom.max_threads_per_block, 1024);
}

TEST(Platform, RoundTripsThroughJson) {
  for (const Platform& p : platform_presets()) {
    const Json doc = to_json(p);
    const Platform back = parse_platform(JsonNode(doc, "rt"));
    EXPECT_EQ(to_json(back), doc) << p.id;
  }
}

TEST(Platform, BadPlatformsAreClearErrors) {
  EXPECT_EQ(error_of(R"("rtx4090")"),
            "p.json: platform = \"rtx4090\": unknown platform preset (presets: gtx1070, rtx2080ti, "
            "rtx3060ti, gtx1080ti, jetson-tx1, jetson-tx2, radeon-vii, h100, h200)");
  EXPECT_EQ(error_of(R"({"preset": "h100", "sms": 0})"), "p.json: platform.sms = 0: must be in 1..65536");
  // The largest block fits in one SM: said explicitly, a larger one is refused; inherited from
  // a preset whose max_threads is lowered, it follows it down.
  EXPECT_EQ(error_of(R"({"preset": "h100", "max_threads": 512, "max_threads_per_block": 1024})"),
            "p.json: platform.max_threads_per_block = 1024: exceeds max_threads 512 (the threads of one SM)");
  EXPECT_EQ(parse(R"({"preset": "rtx3060ti", "max_threads": 64})").max_threads_per_block, 64);
  EXPECT_EQ(parse(R"({"preset": "rtx3060ti"})").max_threads_per_block, 1024);
  EXPECT_EQ(error_of(R"({"preset": "h100", "shared_memory": 0})"),
            "p.json: platform.shared_memory = 0: must be in 1..1099511627776");
  EXPECT_EQ(error_of(R"({"preset": "h100", "registers": 0})"),
            "p.json: platform.registers = 0: must be in 1..1073741824");
  EXPECT_EQ(error_of(R"({"preset": "jetson-tx2", "partition_unit": 4})"),
            "p.json: platform.partition_unit = 4: partition_unit 4 is larger than sms 2");
  EXPECT_EQ(error_of(R"({"preset": "h100", "vendor": "intel"})"),
            "p.json: platform.vendor = \"intel\": must be \"nvidia\" or \"amd\"");
  EXPECT_EQ(error_of(R"({"preset": "h100", "smss": 3})"),
            "p.json: platform.smss: unknown key (did you mean \"sms\"?)");
  EXPECT_EQ(error_of(R"({"vendor": "nvidia", "sms": 4})"),
            "p.json: platform: missing required key \"max_threads\"");
  EXPECT_EQ(error_of(R"(7)"), "p.json: platform = 7: must be an object, not a number");
  // The id and name are printed in summaries: no control characters (an escape sequence would
  // drive the terminal), not empty (the id), at most 256 bytes.
  EXPECT_EQ(
      error_of(R"({"preset": "h100", "id": "\u001b[31mRED"})"),
      "p.json: platform.id = \"\\u001b[31mRED\": holds a control character; names are printed in tables");
  EXPECT_EQ(error_of(R"({"preset": "h100", "name": "n\u0007"})"),
            "p.json: platform.name = \"n\\u0007\": holds a control character; names are printed in tables");
  EXPECT_EQ(error_of(R"({"preset": "h100", "id": ""})"), "p.json: platform.id = \"\": must not be empty");
  EXPECT_EQ(parse(R"({"preset": "h100", "id": "mine", "name": "My H100"})").name, "My H100");
}
