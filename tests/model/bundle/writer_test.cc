#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/ids.h"
#include "model/bundle/bundle.h"
#include "model/object_types.h"
#include "support/temp_dir.h"

namespace tessera::model::bundle {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

namespace fs = std::filesystem;

const fs::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// What must survive a round trip, in a form gtest prints readably.
std::string Summary(const bundle::BundleObject& object) {
  const ObjectRecord& record = object.record;
  return record.id + " " + std::to_string(record.type) + "/" + std::to_string(record.subtype) +
         " '" + record.name + "' '" + record.description + "' in '" + object.folder_path + "' " +
         record.definition.dump();
}

bundle::BundleObject Object(int type, int subtype, const std::string& name, const std::string& id,
                            Json definition) {
  bundle::BundleObject object;
  object.record.type = type;
  object.record.subtype = subtype;
  object.record.name = name;
  object.record.id = id;
  object.record.definition = std::move(definition);
  object.folder_path = bundle::DefaultFolderPath(type, subtype);
  return object;
}

bundle::Bundle ShopBundle() {
  bundle::Bundle bundle;
  bundle.project_name = "Shop";
  bundle.project_id = DeterministicObjectId("tessera:Shop:32:Shop");
  return bundle;
}

std::string ShopId(int type, const std::string& name) {
  return DeterministicObjectId("tessera:Shop:" + std::to_string(type) + ":" + name);
}

TEST(BundleWrite, RoundTripOfTheDemoBundleKeepsEveryRecord) {
  const bundle::Bundle original = bundle::ReadBundle(kDemoBundle);
  const testing::TempDir dir;

  bundle::WriteBundle(original, dir.path());
  const bundle::Bundle copy = bundle::ReadBundle(dir.path());

  EXPECT_EQ(copy.project_name, original.project_name);
  EXPECT_EQ(copy.project_id, original.project_id);
  EXPECT_EQ(copy.description, original.description);
  EXPECT_EQ(copy.warehouse, original.warehouse);
  EXPECT_EQ(copy.folder_paths, original.folder_paths);
  ASSERT_EQ(copy.objects.size(), original.objects.size());
  for (size_t i = 0; i < copy.objects.size(); ++i) {
    EXPECT_EQ(Summary(copy.objects[i]), Summary(original.objects[i]));
  }
}

TEST(BundleWrite, WritingTwiceGivesTheSameBytes) {
  const bundle::Bundle original = bundle::ReadBundle(kDemoBundle);
  const testing::TempDir first;
  const testing::TempDir second;

  bundle::WriteBundle(original, first.path());
  bundle::WriteBundle(bundle::ReadBundle(first.path()), second.path());

  for (const auto& entry : fs::recursive_directory_iterator(first.path())) {
    if (!entry.is_regular_file()) continue;
    const fs::path relative = fs::relative(entry.path(), first.path());
    EXPECT_EQ(ReadText(second.path() / relative), ReadText(entry.path())) << relative;
  }
}

TEST(BundleWrite, ReferencesAreWrittenAsNames) {
  const testing::TempDir dir;

  bundle::WriteBundle(bundle::ReadBundle(kDemoBundle), dir.path());

  const std::string report = ReadText(dir.path() / "reports/quarterly-sales-by-channel.yaml");
  EXPECT_THAT(report, HasSubstr("cube: Sales Cube\n"));
  EXPECT_THAT(report, HasSubstr("rows: [Quarter, Channel]\n"));
  EXPECT_THAT(report, Not(HasSubstr("id:")));
  EXPECT_THAT(ReadText(dir.path() / "metrics.yaml"), HasSubstr("[Profit] / [Revenue]"));
}

TEST(BundleWrite, IdAndFolderAreWrittenOnlyWhenTheyDifferFromTheDerivedOnes) {
  bundle::Bundle bundle = ShopBundle();
  const Json columns = Json::parse(R"([{"name": "id", "dataType": "integer"}])");
  bundle.objects.push_back(Object(kTypeTable, 3840, "derived", ShopId(kTypeTable, "derived"),
                                  {{"physicalName", "derived"}, {"columns", columns}}));
  bundle.objects.push_back(Object(kTypeTable, 3840, "chosen", "0123456789ABCDEF0123456789ABCDEF",
                                  {{"physicalName", "t_chosen"}, {"columns", columns}}));
  bundle.objects.back().folder_path = "Schema Objects/Tables/Staging";
  const testing::TempDir dir;

  bundle::WriteBundle(bundle, dir.path());

  const std::string tables = ReadText(dir.path() / "tables.yaml");
  EXPECT_THAT(tables, Not(HasSubstr(ShopId(kTypeTable, "derived"))));
  EXPECT_THAT(tables, HasSubstr("id: 0123456789ABCDEF0123456789ABCDEF\n"));
  EXPECT_THAT(tables, HasSubstr("folder: Schema Objects/Tables/Staging\n"));
  EXPECT_THAT(tables, HasSubstr("physical_name: t_chosen\n"));
  const bundle::Bundle copy = bundle::ReadBundle(dir.path());
  ASSERT_EQ(copy.objects.size(), 2u);
  EXPECT_EQ(Summary(copy.objects[1]), Summary(bundle.objects[1]));
}

TEST(BundleWrite, FileNamesComeFromObjectNamesAndNeverClash) {
  bundle::Bundle bundle = ShopBundle();
  const Json empty_report = Json::parse(R"({"source": "warehouse", "rows": [], "columns": []})");
  bundle.objects.push_back(
      Object(3, kSubtypeReportGrid, "Sales / Region", ShopId(3, "Sales / Region"), empty_report));
  bundle.objects.push_back(
      Object(3, kSubtypeReportGrid, "sales region", ShopId(3, "sales region"), empty_report));
  bundle.objects.push_back(Object(3, kSubtypeReportGrid, "!!!", ShopId(3, "!!!"), empty_report));
  const testing::TempDir dir;

  bundle::WriteBundle(bundle, dir.path());

  EXPECT_TRUE(fs::exists(dir.path() / "reports/sales-region.yaml"));
  EXPECT_TRUE(fs::exists(dir.path() / "reports/sales-region-2.yaml"));
  EXPECT_TRUE(fs::exists(dir.path() / "reports/report.yaml"));
}

TEST(BundleWrite, ReplacesTheFilesOfAnEarlierWrite) {
  const testing::TempDir dir;
  fs::create_directories(dir.path() / "reports");
  std::ofstream(dir.path() / "reports/stale.yaml") << "name: Stale\n";
  std::ofstream(dir.path() / "filters.yaml") << "filters: []\n";

  bundle::WriteBundle(ShopBundle(), dir.path());

  EXPECT_FALSE(fs::exists(dir.path() / "reports/stale.yaml"));
  EXPECT_FALSE(fs::exists(dir.path() / "filters.yaml"));
  EXPECT_EQ(ReadText(dir.path() / "project.yaml"), "name: Shop\n");
}

TEST(BundleWrite, DashboardValuesKeepTheirJsonTypes) {
  bundle::Bundle bundle = ShopBundle();
  const Json definition = Json::parse(R"({"parallelRendering": true, "title": "true",
      "year": "2024", "count": 3, "ratio": 0.25, "note": null, "empty": "",
      "chapters": [{"key": "K1", "name": "2024", "pages": [{"key": "K2", "visualizations": []}]}],
      "isDashboard": true})");
  bundle.objects.push_back(
      Object(kTypeDocumentDefinition, kSubtypeDashboard, "Board", ShopId(55, "Board"), definition));
  const testing::TempDir dir;

  bundle::WriteBundle(bundle, dir.path());
  const bundle::Bundle copy = bundle::ReadBundle(dir.path());

  ASSERT_EQ(copy.objects.size(), 1u);
  EXPECT_EQ(copy.objects[0].record.definition, definition);
}

TEST(BundleWrite, TextThatLooksLikeYamlSurvives) {
  bundle::Bundle bundle = ShopBundle();
  bundle.description = "two lines:\n# not a comment";
  const std::string name = "- 2024: [odd] #name";
  bundle.objects.push_back(Object(kTypeDocumentDefinition, kSubtypeDashboard, name,
                                  ShopId(55, name), {{"chapters", Json::array()}}));
  bundle.objects.back().record.description = "  'quoted' \"and\" padded  ";
  const testing::TempDir dir;

  bundle::WriteBundle(bundle, dir.path());
  const bundle::Bundle copy = bundle::ReadBundle(dir.path());

  EXPECT_EQ(copy.description, bundle.description);
  ASSERT_EQ(copy.objects.size(), 1u);
  EXPECT_EQ(copy.objects[0].record.name, name);
  EXPECT_EQ(copy.objects[0].record.description, bundle.objects[0].record.description);
  EXPECT_EQ(copy.objects[0].record.id, ShopId(55, name));
}

}  // namespace
}  // namespace tessera::model::bundle
