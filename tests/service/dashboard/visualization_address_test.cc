// The chapter and visualization keys of a visualization's path, and what is said when they do not
// fit together (service/dashboard/visualization_address.h).
#include "service/dashboard/visualization_address.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/error.h"

namespace tessera::service::dashboard {
namespace {

// Chapter K1 with pages K2 (W4) and K3 (W5); chapter K4 with page K5 (W7).
model::Dashboard TwoChapters() {
  model::Dashboard dashboard;
  model::Chapter first{"K1", "Overview", {}, {}};
  first.pages.push_back({"K2", "Summary", {}, {}});
  first.pages.back().visualizations.emplace_back().key = "W4";
  first.pages.push_back({"K3", "Detail", {}, {}});
  first.pages.back().visualizations.emplace_back().key = "W5";
  model::Chapter second{"K4", "Regions", {}, {}};
  second.pages.push_back({"K5", "Map", {}, {}});
  second.pages.back().visualizations.emplace_back().key = "W7";
  dashboard.chapters = {first, second};
  return dashboard;
}

// The message of the Error(kNotFound) the check throws; nullopt when it passes.
std::optional<std::string> Refusal(std::string_view chapter, std::string_view visualization) {
  try {
    dashboard::CheckVisualizationAddress(TwoChapters(), chapter, visualization);
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kNotFound);
    return std::string(error.message());
  }
  return std::nullopt;
}

TEST(VisualizationAddress, AVisualizationOfTheChapterPasses) {
  EXPECT_EQ(Refusal("K1", "W5"), std::nullopt);
  EXPECT_EQ(Refusal("K4", "W7"), std::nullopt);
}

TEST(VisualizationAddress, APageKeySaysItIsOneAndOfWhichChapter) {
  EXPECT_EQ(Refusal("K3", "W5"),
            "'K3' is a page key (of chapter 'K1'); the path takes a chapter key: visualization "
            "'W5' is in chapter 'K1'");
  EXPECT_EQ(Refusal("K5", "W4"),
            "'K5' is a page key (of chapter 'K4'); the path takes a chapter key: visualization "
            "'W4' is in chapter 'K1'");
}

TEST(VisualizationAddress, AnotherChapterSaysWhereTheVisualizationIs) {
  EXPECT_EQ(Refusal("K4", "W4"),
            "Visualization 'W4' is not in chapter 'K4'; it is in chapter 'K1'");
}

TEST(VisualizationAddress, UnknownKeysAreNamed) {
  EXPECT_EQ(Refusal("K9", "W7"),
            "'K9' is not a chapter key of this dashboard: visualization 'W7' is in chapter 'K4'");
  EXPECT_EQ(Refusal("K1", "W99"), "'W99' is not a visualization key of this dashboard");
}

}  // namespace
}  // namespace tessera::service::dashboard
