#include "model/package/id_repointing.h"

#include <gtest/gtest.h>

namespace tessera::model::package {
namespace {

constexpr const char* kOld = "3E5A7C9B1D2F43658798A9BACBDCEDFE";
constexpr const char* kNew = "0F1E2D3C4B5A69788796A5B4C3D2E1F0";
const std::map<std::string, std::string> kCopies = {{kOld, kNew}};

Json RepointText(std::string_view text) { return package::Repoint(Json::parse(text), kCopies); }

TEST(Repoint, ReplacesAnIdThatIsAWholeStringValue) {
  EXPECT_EQ(RepointText(R"({"fact": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "function": "sum"})"),
            Json::parse(R"({"fact": "0F1E2D3C4B5A69788796A5B4C3D2E1F0", "function": "sum"})"));
}

TEST(Repoint, ReplacesAnIdInsideAnElementId) {
  EXPECT_EQ(RepointText(R"({"elements": ["h2024;3E5A7C9B1D2F43658798A9BACBDCEDFE"]})"),
            Json::parse(R"({"elements": ["h2024;0F1E2D3C4B5A69788796A5B4C3D2E1F0"]})"));
}

TEST(Repoint, ReplacesEveryOccurrenceInAnExpression) {
  EXPECT_EQ(
      RepointText(
          R"({"expression": "[3E5A7C9B1D2F43658798A9BACBDCEDFE] / [3E5A7C9B1D2F43658798A9BACBDCEDFE]"})"),
      Json::parse(
          R"({"expression": "[0F1E2D3C4B5A69788796A5B4C3D2E1F0] / [0F1E2D3C4B5A69788796A5B4C3D2E1F0]"})"));
}

TEST(Repoint, ReplacesIdsInObjectKeysKeepingTheirOrder) {
  Json repointed =
      RepointText(R"({"first": 1, "3E5A7C9B1D2F43658798A9BACBDCEDFE": {"width": 80}, "last": 2})");
  EXPECT_EQ(repointed.dump(),
            R"({"first":1,"0F1E2D3C4B5A69788796A5B4C3D2E1F0":{"width":80},"last":2})");
}

TEST(Repoint, ReachesIntoNestedArraysAndObjects) {
  EXPECT_EQ(RepointText(R"({"qualification": {"operator": "And", "operands": [
                {"type": "attribute", "id": "3E5A7C9B1D2F43658798A9BACBDCEDFE"},
                [["3E5A7C9B1D2F43658798A9BACBDCEDFE"]]]}})"),
            Json::parse(R"({"qualification": {"operator": "And", "operands": [
                {"type": "attribute", "id": "0F1E2D3C4B5A69788796A5B4C3D2E1F0"},
                [["0F1E2D3C4B5A69788796A5B4C3D2E1F0"]]]}})"));
}

TEST(Repoint, LeavesAMatchThatIsPartOfALongerHexRun) {
  const char* text = R"({"a": "C3E5A7C9B1D2F43658798A9BACBDCEDFE",
                         "b": "3E5A7C9B1D2F43658798A9BACBDCEDFE0",
                         "c": "face3E5A7C9B1D2F43658798A9BACBDCEDFE"})";
  EXPECT_EQ(RepointText(text), Json::parse(text));
}

TEST(Repoint, ReplacesAMatchBoundedByNonHexCharacters) {
  EXPECT_EQ(
      RepointText(
          R"({"a": "x3E5A7C9B1D2F43658798A9BACBDCEDFEx", "b": "-3E5A7C9B1D2F43658798A9BACBDCEDFE_"})"),
      Json::parse(
          R"({"a": "x0F1E2D3C4B5A69788796A5B4C3D2E1F0x", "b": "-0F1E2D3C4B5A69788796A5B4C3D2E1F0_"})"));
}

TEST(Repoint, MatchesIdsInAnyCase) {
  EXPECT_EQ(RepointText(R"(["3e5a7c9b1d2f43658798a9bacbdcedfe"])"),
            Json::parse(R"(["0F1E2D3C4B5A69788796A5B4C3D2E1F0"])"));
  EXPECT_EQ(package::Repoint(Json::parse(R"(["3E5A7C9B1D2F43658798A9BACBDCEDFE"])"),
                             {{"3e5a7c9b1d2f43658798a9bacbdcedfe", kNew}}),
            Json::parse(R"(["0F1E2D3C4B5A69788796A5B4C3D2E1F0"])"));
}

TEST(Repoint, LeavesIdsThatAreNotInTheMapAndValuesThatAreNotStrings) {
  const char* text = R"({"other": "C3B2A1908F7E4D6C5B4A39281706F5E4", "n": 42, "b": true,
                         "z": null, "d": 1.5, "short": "3E5A7C9B"})";
  EXPECT_EQ(RepointText(text), Json::parse(text));
}

TEST(Repoint, ReplacesSeveralIdsInOnePass) {
  // A chain old -> new where the new id is itself an old id is not followed.
  std::map<std::string, std::string> swap = {{kOld, kNew}, {kNew, kOld}};
  EXPECT_EQ(
      package::Repoint(
          Json::parse(R"(["3E5A7C9B1D2F43658798A9BACBDCEDFE;0F1E2D3C4B5A69788796A5B4C3D2E1F0"])"),
          swap),
      Json::parse(R"(["0F1E2D3C4B5A69788796A5B4C3D2E1F0;3E5A7C9B1D2F43658798A9BACBDCEDFE"])"));
}

TEST(Repoint, AnEmptyMapChangesNothing) {
  const char* text = R"({"3E5A7C9B1D2F43658798A9BACBDCEDFE": "3E5A7C9B1D2F43658798A9BACBDCEDFE"})";
  EXPECT_EQ(package::Repoint(Json::parse(text), {}), Json::parse(text));
}

TEST(Repoint, AScalarDefinitionIsRepointedToo) {
  EXPECT_EQ(package::Repoint(Json(kOld), kCopies), Json(kNew));
  EXPECT_EQ(package::Repoint(Json(7), kCopies), Json(7));
}

}  // namespace
}  // namespace tessera::model::package
