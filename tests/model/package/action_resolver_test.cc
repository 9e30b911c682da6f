#include "model/package/action_resolver.h"

#include <gtest/gtest.h>

#include "model/object_types.h"

namespace tessera::model::package {
namespace {

constexpr const char* kRoot = "D43364C684E34A5F9B2F9AD7108F7828";
constexpr const char* kPublicObjects = "98FE182C2A10427EACE0CD30B6768258";
constexpr const char* kMetricsFolder = "C3B2A1908F7E4D6C5B4A39281706F5E4";
constexpr const char* kRevenue = "3E5A7C9B1D2F43658798A9BACBDCEDFE";
constexpr const char* kProfit = "4F6B8DAC2E3054769809BACBDCEDFE0F";

// Revenue, a metric in Public Objects/Metrics.
package::ResolverObject Revenue() {
  return {kRevenue, kTypeMetric, 1024, {kMetricsFolder, kPublicObjects, kRoot}};
}

package::ResolverObject MetricsFolder() {
  return {kMetricsFolder, kTypeFolder, kSubtypeFolder, {kPublicObjects, kRoot}};
}

package::PackageSettings MergeSettings(std::string_view text) {
  return package::ParsePackageSettings(Json::parse(text), package::PackageKind::kProject);
}

package::ConflictRule ResolveMerge(std::string_view settings,
                                   const package::ResolverObject& object) {
  return package::ActionResolver(MergeSettings(settings), {},
                                 package::PackagePurpose::kProjectMerge)
      .Resolve(object);
}

// --- object migration ------------------------------------------------------------------------

TEST(ActionResolver, AListedObjectTakesItsItemsAction) {
  package::PackageSettings settings = MergeSettings(R"({"defaultAction": "use_existing"})");
  package::ActionResolver resolver(
      settings, {{kRevenue, "Revenue", 4, package::ConflictRule::kReplace, true}},
      package::PackagePurpose::kObjectMigration);
  EXPECT_EQ(resolver.Resolve(Revenue()), package::ConflictRule::kReplace);
}

TEST(ActionResolver, ADependentTakesTheDefaultAction) {
  package::PackageSettings settings = MergeSettings(R"({"defaultAction": "use_newer"})");
  package::ActionResolver resolver(settings,
                                   {{kProfit, "Profit", 4, package::ConflictRule::kReplace, true}},
                                   package::PackagePurpose::kObjectMigration);
  EXPECT_EQ(resolver.Resolve(Revenue()), package::ConflictRule::kUseNewer);
}

TEST(ActionResolver, AnObjectBothListedAndPulledInTakesItsListedAction) {
  // Revenue is listed and also a dependent of Profit.
  package::PackageSettings settings = MergeSettings(R"({"defaultAction": "use_existing"})");
  package::ActionResolver resolver(
      settings,
      {{kProfit, "Profit", 4, package::ConflictRule::kReplace, true},
       {kRevenue, "Revenue", 4, package::ConflictRule::kForceReplace, false}},
      package::PackagePurpose::kObjectMigration);
  EXPECT_EQ(resolver.Resolve(Revenue()), package::ConflictRule::kForceReplace);
}

TEST(ActionResolver, ListedIdsMatchIgnoringCase) {
  package::PackageSettings settings = MergeSettings("{}");
  package::ActionResolver resolver(
      settings,
      {{"3e5a7c9b1d2f43658798a9bacbdcedfe", "", 4, package::ConflictRule::kDelete, false}},
      package::PackagePurpose::kObjectMigration);
  EXPECT_EQ(resolver.Resolve(Revenue()), package::ConflictRule::kDelete);
}

TEST(ActionResolver, MergeListsDoNotApplyOutsideAProjectMerge) {
  package::PackageSettings settings = MergeSettings(R"({"defaultAction": "use_existing",
      "objectActions": [{"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "delete"}],
      "folderActions": [{"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "delete"}],
      "objectTypeActions": [{"type": 4, "action": "delete"}]})");
  package::ActionResolver resolver(settings, {}, package::PackagePurpose::kObjectMigration);
  EXPECT_EQ(resolver.Resolve(Revenue()), package::ConflictRule::kUseExisting);
}

TEST(ActionResolver, TheResolverOutlivesTheSettingsItWasBuiltFrom) {
  auto resolver = [] {
    package::PackageSettings settings = MergeSettings(R"({"defaultAction": "use_older"})");
    std::vector<package::ContentItem> content = {
        {kProfit, "", 4, package::ConflictRule::kDelete, false}};
    return package::ActionResolver(settings, content, package::PackagePurpose::kObjectMigration);
  }();
  EXPECT_EQ(resolver.Resolve(Revenue()), package::ConflictRule::kUseOlder);
  EXPECT_EQ(resolver.Resolve({kProfit, 4, 1024, {}}), package::ConflictRule::kDelete);
}

// --- project merge ---------------------------------------------------------------------------

TEST(ActionResolver, WithoutAMatchingRuleAMergedObjectTakesTheDefaultAction) {
  EXPECT_EQ(ResolveMerge(R"({"defaultAction": "use_older",
      "objectTypeActions": [{"type": 3, "action": "delete"}]})",
                         Revenue()),
            package::ConflictRule::kUseOlder);
}

TEST(ActionResolver, AnObjectActionBeatsEveryOtherRule) {
  EXPECT_EQ(ResolveMerge(R"({"defaultAction": "use_existing",
      "objectActions": [{"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "force_replace"}],
      "folderActions": [{"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "delete"}],
      "objectTypeActions": [{"type": 4, "subtype": 1024, "action": "use_newer"},
                            {"type": 4, "action": "use_older"}]})",
                         Revenue()),
            package::ConflictRule::kForceReplace);
}

TEST(ActionResolver, AFolderActionBeatsTypeActions) {
  EXPECT_EQ(ResolveMerge(R"({
      "folderActions": [{"id": "98FE182C2A10427EACE0CD30B6768258", "action": "delete"}],
      "objectTypeActions": [{"type": 4, "subtype": 1024, "action": "use_newer"},
                            {"type": 4, "action": "use_older"}]})",
                         Revenue()),
            package::ConflictRule::kDelete);
}

TEST(ActionResolver, ATypeAndSubtypeActionBeatsATypeAction) {
  EXPECT_EQ(ResolveMerge(R"({"objectTypeActions": [{"type": 4, "action": "use_older"},
                                                   {"type": 4, "subtype": 1024,
                                                    "action": "use_newer"}]})",
                         Revenue()),
            package::ConflictRule::kUseNewer);
}

TEST(ActionResolver, ATypeActionBeatsTheDefaultAction) {
  EXPECT_EQ(ResolveMerge(R"({"defaultAction": "replace",
      "objectTypeActions": [{"type": 4, "action": "use_older"},
                            {"type": 4, "subtype": 1025, "action": "delete"}]})",
                         Revenue()),
            package::ConflictRule::kUseOlder);
}

TEST(ActionResolver, TheDeepestMatchingFolderWins) {
  const char* settings = R"({"folderActions": [
      {"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "replace"},
      {"id": "D43364C684E34A5F9B2F9AD7108F7828", "action": "delete"},
      {"id": "98FE182C2A10427EACE0CD30B6768258", "action": "keep_both"}]})";
  EXPECT_EQ(ResolveMerge(settings, Revenue()), package::ConflictRule::kReplace);
  package::ResolverObject in_public_objects = {kProfit, kTypeMetric, 1024, {kPublicObjects, kRoot}};
  EXPECT_EQ(ResolveMerge(settings, in_public_objects), package::ConflictRule::kKeepBoth);
}

TEST(ActionResolver, AFolderRuleCoversTheFolderItself) {
  EXPECT_EQ(ResolveMerge(R"({"defaultAction": "use_existing", "folderActions": [
      {"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "force_replace"},
      {"id": "98FE182C2A10427EACE0CD30B6768258", "action": "delete"}]})",
                         MetricsFolder()),
            package::ConflictRule::kForceReplace);
}

TEST(ActionResolver, FoldersFollowTheNormalPrecedence) {
  EXPECT_EQ(ResolveMerge(R"({"defaultAction": "replace",
      "objectTypeActions": [{"type": 8, "action": "use_newer"}]})",
                         MetricsFolder()),
            package::ConflictRule::kUseNewer);
  EXPECT_EQ(ResolveMerge(R"({"defaultAction": "replace"})", MetricsFolder()),
            package::ConflictRule::kReplace);
}

TEST(ActionResolver, AFolderRuleDoesNotCoverItsParent) {
  package::ResolverObject public_objects = {kPublicObjects, kTypeFolder, kSubtypeFolder, {kRoot}};
  EXPECT_EQ(ResolveMerge(R"({"defaultAction": "use_existing", "folderActions": [
      {"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "delete"}]})",
                         public_objects),
            package::ConflictRule::kUseExisting);
}

TEST(ActionResolver, MergeRuleIdsMatchIgnoringCase) {
  package::ResolverObject lower = Revenue();
  lower.id = "3e5a7c9b1d2f43658798a9bacbdcedfe";
  lower.ancestor_ids = {"c3b2a1908f7e4d6c5b4a39281706f5e4"};
  EXPECT_EQ(ResolveMerge(R"({"objectActions": [
      {"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "delete"}]})",
                         lower),
            package::ConflictRule::kDelete);
  EXPECT_EQ(ResolveMerge(R"({"folderActions": [
      {"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "replace"}]})",
                         lower),
            package::ConflictRule::kReplace);
}

TEST(ActionResolver, TheLastEntryForAnIdWinsEvenInHandBuiltSettings) {
  package::PackageSettings settings;
  settings.object_actions = {{kRevenue, package::ConflictRule::kDelete},
                             {kRevenue, package::ConflictRule::kReplace}};
  package::ActionResolver resolver(settings, {}, package::PackagePurpose::kProjectMerge);
  EXPECT_EQ(resolver.Resolve(Revenue()), package::ConflictRule::kReplace);
}

}  // namespace
}  // namespace tessera::model::package
