#include "core/platform_version.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace tessera {
namespace {

TEST(PlatformVersion, ComponentsCompareAsIntegersNotText) {
  EXPECT_GT(ParsePlatformVersion("11.10"), ParsePlatformVersion("11.9"));
  EXPECT_LT(ParsePlatformVersion("11.6.0200.0001"), ParsePlatformVersion("11.6.0200.0002"));
  EXPECT_LT(ParsePlatformVersion("11.3.1000.0001"), ParsePlatformVersion("11.6.0200.0001"));
  EXPECT_GT(ParsePlatformVersion("12"), ParsePlatformVersion("11.99.9999.9999"));
}

TEST(PlatformVersion, LeadingZerosAndMissingComponentsDoNotMatter) {
  EXPECT_EQ(ParsePlatformVersion("11.6.0200.0001"), ParsePlatformVersion("11.6.200.1"));
  EXPECT_EQ(ParsePlatformVersion("11"), ParsePlatformVersion("11.0.0.0"));
  EXPECT_EQ(ParsePlatformVersion("11.6"), ParsePlatformVersion("11.6.0"));
  EXPECT_EQ(ParsePlatformVersion("11.6.0200.0001").components,
            (std::array<uint64_t, 4>{11, 6, 200, 1}));
}

TEST(PlatformVersion, FormatsFourComponentsWithoutLeadingZeros) {
  EXPECT_EQ(Format(ParsePlatformVersion("11.6.0200.0001")), "11.6.200.1");
  EXPECT_EQ(Format(ParsePlatformVersion("11")), "11.0.0.0");
}

TEST(PlatformVersion, RefusesAnythingButOneToFourNumbers) {
  for (const char* text : {"", ".", "11.", ".6", "11..6", "1.2.3.4.5", "11.6a", "v11", "-1.0", "+1",
                           " 11.6", "11.6 ", "11,6", "99999999999999999999999"}) {
    try {
      ParsePlatformVersion(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidInput) << text;
      EXPECT_NE(error.message().find("is not a platform version"), std::string_view::npos)
          << error.message();
    }
  }
}

}  // namespace
}  // namespace tessera
