// Number formats: formatted values and the numberFormatting object.
#include "model/number_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/error.h"

namespace tessera::model {
namespace {

std::string Formatted(std::string_view format, double value) {
  return NumberFormat::Parse(format).Format(value);
}

TEST(NumberFormat, GeneralIsTheShortestRoundTripWithoutGrouping) {
  const NumberFormat general;
  EXPECT_EQ(general.Format(1250.4), "1250.4");
  EXPECT_EQ(general.Format(40), "40");
  EXPECT_EQ(general.Format(-0.5), "-0.5");
  EXPECT_EQ(general.Format(10000000), "10000000");
  EXPECT_EQ(general.Format(-0.0), "0");
  EXPECT_EQ(general.Format(1e21), "1e+21");
  EXPECT_EQ(general.Format(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(NumberFormat::Parse("General").Format(3), "3");
  EXPECT_EQ(NumberFormat::Parse("").Format(3), "3");
  // Every general text reads back as the same double.
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> exponent(-12, 25);
  for (int i = 0; i < 2000; ++i) {
    const double value = std::pow(10.0, exponent(random)) * (i % 2 ? -1 : 1);
    EXPECT_EQ(std::stod(general.Format(value)), value) << general.Format(value);
  }
}

TEST(NumberFormat, FixedPlaceholdersGroupingAndRounding) {
  EXPECT_EQ(Formatted("#,##0", 1250.4), "1,250");
  EXPECT_EQ(Formatted("#,##0", 1234567.5), "1,234,568");
  EXPECT_EQ(Formatted("#,##0", 999.5), "1,000");
  EXPECT_EQ(Formatted("#,##0", 0.2), "0");
  EXPECT_EQ(Formatted("#,##0.00", 2.675), "2.68");  // half away from zero on 2.675 as written
  EXPECT_EQ(Formatted("#,##0.00", -2.675), "-2.68");
  EXPECT_EQ(Formatted("0.00", 9.995), "10.00");
  EXPECT_EQ(Formatted("0.0#", 1.5), "1.5");
  EXPECT_EQ(Formatted("0.0#", 1.25), "1.25");
  EXPECT_EQ(Formatted("0.0#", 1.2), "1.2");
  EXPECT_EQ(Formatted("0.0#", 1), "1.0");
  EXPECT_EQ(Formatted("#.##", 0.5), ".5");
  EXPECT_EQ(Formatted("000", 7), "007");
  EXPECT_EQ(Formatted("#,##0", 123456789012345678.0), "123,456,789,012,345,680");
  EXPECT_EQ(Formatted("0.00", -0.001), "0.00");  // rounds to zero: no minus sign
}

TEST(NumberFormat, CurrencyPercentLiteralsTagsAndNegativeSections) {
  EXPECT_EQ(Formatted("\"$\"#,##0", 1250.4), "$1,250");
  EXPECT_EQ(Formatted("\"$\"#,##0", -980), "-$980");
  EXPECT_EQ(Formatted("$#,##0.00", 12.5), "$12.50");
  EXPECT_EQ(Formatted("#,##0 \"€\"", 12.5), "13 €");
  EXPECT_EQ(Formatted("0.0%", 0.256), "25.6%");
  EXPECT_EQ(Formatted("0%", -0.5), "-50%");
  EXPECT_EQ(Formatted("#,##0;(#,##0)", -1234), "(1,234)");
  EXPECT_EQ(Formatted("#,##0;[Red](#,##0)", -1234), "(1,234)");
  EXPECT_EQ(Formatted("#,##0;[Red](#,##0)", 1234), "1,234");
  EXPECT_EQ(Formatted("[Blue]0.0", 2), "2.0");
  EXPECT_EQ(Formatted("0\" units\"", 3), "3 units");
  EXPECT_EQ(Formatted("\\#0", 3), "#3");
  EXPECT_EQ(Formatted("\";\"0", 3), ";3");
  EXPECT_EQ(Formatted("0.00", std::numeric_limits<double>::infinity()), "");
  EXPECT_EQ(Formatted("0.00", std::nan("")), "");
}

TEST(NumberFormat, DescribesItselfAsNumberFormatting) {
  EXPECT_EQ(NumberFormat().Describe(),
            Json::parse(R"({"category": 9, "formatString": "General"})"));
  EXPECT_EQ(NumberFormat::Parse("#,##0").Describe(),
            Json::parse(R"({"category": 0, "decimalPlaces": 0, "formatString": "#,##0",
                            "negativeType": 1})"));
  EXPECT_EQ(NumberFormat::Parse("\"$\"#,##0").Describe(),
            Json::parse(R"({"category": 1, "decimalPlaces": 0, "thousandSeparator": true,
                            "currencySymbol": "$", "currencyPosition": 0,
                            "formatString": "\"$\"#,##0", "negativeType": 1})"));
  const Json percent = NumberFormat::Parse("0.0%;(0.0%)").Describe();
  EXPECT_EQ(percent["category"], 4);
  EXPECT_EQ(percent["decimalPlaces"], 1);
  EXPECT_EQ(percent["negativeType"], 3);
  EXPECT_EQ(NumberFormat::Parse("#,##0 €").Describe()["currencyPosition"], 1);
}

TEST(NumberFormat, UnsupportedFormatsAreInvalidInputNamingTheFormat) {
  for (const char* bad : {"abc", "0.00E+00", "\"$", "[Red", "0;0;0", "0.0.0", "\"x\"", "0 0",
                          "0.0000000000000000", "0\\"}) {
    try {
      NumberFormat::Parse(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidInput) << bad;
      EXPECT_NE(std::string(error.what()).find(bad), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace tessera::model
