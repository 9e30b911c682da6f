#include "model/package/settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "core/error.h"

namespace tessera::model::package {
namespace {

using ::testing::HasSubstr;

constexpr const char* kFolder = "98FE182C2A10427EACE0CD30B6768258";
constexpr const char* kMetric = "3E5A7C9B1D2F43658798A9BACBDCEDFE";
constexpr const char* kReport = "C3B2A1908F7E4D6C5B4A39281706F5E4";

package::PackageSettings Parse(std::string_view text,
                               package::PackageKind kind = package::PackageKind::kProject) {
  return package::ParsePackageSettings(Json::parse(text), kind);
}

// The error a call throws; fails the test when it throws none.
Error Thrown(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "no error was thrown";
  return Error(ErrorCode::kInternal, "");
}

Error SettingsError(std::string_view text,
                    package::PackageKind kind = package::PackageKind::kProject) {
  return Thrown([&] { Parse(text, kind); });
}

Error ContentError(std::string_view text) {
  return Thrown([&] { package::ParseContent(Json::parse(text)); });
}

const Json kDefaultProjectSettings = Json::parse(R"({
  "defaultAction": "use_existing",
  "updateSchema": [],
  "aclOnReplacingObjects": "use_existing",
  "aclOnNewObjects": ["keep_acl_as_source_object"],
  "validateDependencies": true,
  "folderActions": [],
  "objectActions": [],
  "objectTypeActions": [],
  "translationAction": "not_merged"
})");

// --- defaults --------------------------------------------------------------------------------

TEST(PackageSettings, AbsentKeysTakeTheDefaultsOfTheSpec) {
  EXPECT_EQ(ToJson(Parse("{}")), kDefaultProjectSettings);
}

TEST(PackageSettings, NullSettingsAreAllDefaults) {
  EXPECT_EQ(ToJson(package::ParsePackageSettings(nullptr, package::PackageKind::kProject)),
            kDefaultProjectSettings);
}

TEST(PackageSettings, NullValuesCountAsAbsentExceptTheAclOptionForReplacedObjects) {
  package::PackageSettings settings = Parse(R"({"defaultAction": null, "updateSchema": null,
      "aclOnNewObjects": null, "validateDependencies": null, "folderActions": null,
      "translationAction": null, "aclOnReplacingObjects": null})");
  Json expected = kDefaultProjectSettings;
  expected["aclOnReplacingObjects"] = nullptr;
  EXPECT_EQ(ToJson(settings), expected);
  EXPECT_EQ(settings.acl_on_replacing, package::AclOnReplacing::kNone);
}

TEST(PackageSettings, ProjectSecurityPackagesHaveNoAclOptionForReplacedObjects) {
  EXPECT_EQ(Parse("{}", package::PackageKind::kProjectSecurity).acl_on_replacing,
            package::AclOnReplacing::kNone);
  EXPECT_EQ(Parse(R"({"aclOnReplacingObjects": null})", package::PackageKind::kProjectSecurity)
                .acl_on_replacing,
            package::AclOnReplacing::kNone);
}

TEST(PackageSettings, ReadsEveryField) {
  package::PackageSettings settings = Parse(R"({
    "defaultAction": "replace",
    "updateSchema": ["recal_table_logical_size"],
    "aclOnReplacingObjects": "keep_both",
    "aclOnNewObjects": ["inherit_acl_as_dest_folder"],
    "validateDependencies": false,
    "folderActions": [{"id": "98FE182C2A10427EACE0CD30B6768258", "action": "force_replace"}],
    "objectActions": [{"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "use_newer"}],
    "objectTypeActions": [{"type": 4, "subtype": 1024, "action": "use_older"},
                          {"type": 3, "action": "delete"}],
    "translationAction": "force_replace"})");
  EXPECT_EQ(settings.default_action, package::ConflictRule::kReplace);
  EXPECT_EQ(settings.update_schema, std::vector{package::UpdateSchemaStep::kRecalTableLogicalSize});
  EXPECT_EQ(settings.acl_on_replacing, package::AclOnReplacing::kKeepBoth);
  EXPECT_EQ(settings.acl_on_new, std::vector{package::AclOnNew::kInheritAclAsDestFolder});
  EXPECT_FALSE(settings.validate_dependencies);
  ASSERT_EQ(settings.folder_actions.size(), 1u);
  EXPECT_EQ(settings.folder_actions[0].id, kFolder);
  EXPECT_EQ(settings.folder_actions[0].action, package::ConflictRule::kForceReplace);
  ASSERT_EQ(settings.object_actions.size(), 1u);
  EXPECT_EQ(settings.object_actions[0].action, package::ConflictRule::kUseNewer);
  ASSERT_EQ(settings.object_type_actions.size(), 2u);
  EXPECT_EQ(settings.object_type_actions[0].type, 4);
  EXPECT_EQ(settings.object_type_actions[0].subtype, 1024);
  EXPECT_EQ(settings.object_type_actions[0].action, package::ConflictRule::kUseOlder);
  EXPECT_EQ(settings.object_type_actions[1].type, 3);
  EXPECT_EQ(settings.object_type_actions[1].subtype, std::nullopt);
  EXPECT_EQ(settings.translation_action, package::TranslationAction::kForceReplace);
}

// --- tolerances ------------------------------------------------------------------------------

TEST(PackageSettings, ABareStringForAclOnNewObjectsIsAOneElementArray) {
  EXPECT_EQ(Parse(R"({"aclOnNewObjects": "inherit_acl_as_dest_folder"})").acl_on_new,
            std::vector{package::AclOnNew::kInheritAclAsDestFolder});
}

TEST(PackageSettings, NullElementsOfAclOnNewObjectsAreSkippedAndNothingLeftMeansTheDefault) {
  EXPECT_EQ(Parse(R"({"aclOnNewObjects": [null]})").acl_on_new,
            std::vector{package::AclOnNew::kKeepAclAsSourceObject});
  EXPECT_EQ(Parse(R"({"aclOnNewObjects": []})").acl_on_new,
            std::vector{package::AclOnNew::kKeepAclAsSourceObject});
}

TEST(PackageSettings, WithBothAclOptionsForNewObjectsInheritWins) {
  package::PackageSettings settings =
      Parse(R"({"aclOnNewObjects": ["inherit_acl_as_dest_folder", "keep_acl_as_source_object"]})");
  EXPECT_EQ(ToJson(settings)["aclOnNewObjects"],
            Json::parse(R"(["keep_acl_as_source_object", "inherit_acl_as_dest_folder"])"));
  EXPECT_EQ(package::EffectiveAclOnNew(settings), package::AclOnNew::kInheritAclAsDestFolder);
  EXPECT_EQ(package::EffectiveAclOnNew(Parse("{}")), package::AclOnNew::kKeepAclAsSourceObject);
}

TEST(PackageSettings, ASingleStringForUpdateSchemaIsAOneElementArray) {
  EXPECT_EQ(Parse(R"({"updateSchema": "update_schema_logical_info"})").update_schema,
            std::vector{package::UpdateSchemaStep::kUpdateSchemaLogicalInfo});
}

TEST(PackageSettings, UpdateSchemaStepsComeOnceInTheOrderTheyRun) {
  package::PackageSettings settings = Parse(R"({"updateSchema": ["update_schema_logical_info",
      "recal_table_logical_size", "recal_table_keys_fact_entry_level",
      "recal_table_logical_size"]})");
  EXPECT_EQ(ToJson(settings)["updateSchema"],
            Json::parse(R"(["recal_table_keys_fact_entry_level", "recal_table_logical_size",
                            "update_schema_logical_info"])"));
}

TEST(PackageSettings, ObjectTypeActionsAcceptSubTypeAsWellAsSubtype) {
  package::PackageSettings settings =
      Parse(R"({"objectTypeActions": [{"type": 4, "subType": 1025, "action": "replace"}]})");
  ASSERT_EQ(settings.object_type_actions.size(), 1u);
  EXPECT_EQ(settings.object_type_actions[0].subtype, 1025);
  EXPECT_EQ(ToJson(settings)["objectTypeActions"],
            Json::parse(R"([{"type": 4, "subtype": 1025, "action": "replace"}])"));
}

TEST(PackageSettings, SubtypeAndSubTypeMayBothBeSentWhenTheyAgree) {
  package::PackageSettings settings = Parse(
      R"({"objectTypeActions": [{"type": 4, "subtype": 1025, "subType": 1025,
                                 "action": "replace"}]})");
  EXPECT_EQ(settings.object_type_actions[0].subtype, 1025);
}

TEST(PackageSettings, AnObjectTypeInObjectActionsIsIgnored) {
  package::PackageSettings settings = Parse(
      R"({"objectActions": [{"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "replace",
                             "objectType": 4}]})");
  EXPECT_EQ(ToJson(settings)["objectActions"],
            Json::parse(R"([{"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "replace"}])"));
}

TEST(PackageSettings, ExistingIsAnAliasOfUseExistingForTranslations) {
  package::PackageSettings settings = Parse(R"({"translationAction": "existing"})");
  EXPECT_EQ(settings.translation_action, package::TranslationAction::kUseExisting);
  EXPECT_EQ(ToJson(settings)["translationAction"], "use_existing");
}

TEST(PackageSettings, EveryTranslationActionIsRead) {
  EXPECT_EQ(Parse(R"({"translationAction": "not_merged"})").translation_action,
            package::TranslationAction::kNotMerged);
  EXPECT_EQ(Parse(R"({"translationAction": "use_existing"})").translation_action,
            package::TranslationAction::kUseExisting);
  EXPECT_EQ(Parse(R"({"translationAction": "replace"})").translation_action,
            package::TranslationAction::kReplace);
  EXPECT_EQ(Parse(R"({"translationAction": "force_replace"})").translation_action,
            package::TranslationAction::kForceReplace);
}

TEST(PackageSettings, UnknownKeysAreIgnored) {
  EXPECT_EQ(ToJson(Parse(R"({"somethingNew": [1, 2], "defaultAction": "use_existing"})")),
            kDefaultProjectSettings);
}

TEST(PackageSettings, IdsAreNormalisedToUpperCase) {
  package::PackageSettings settings = Parse(
      R"({"folderActions": [{"id": "98fe182c2a10427eace0cd30b6768258", "action": "replace"}]})");
  EXPECT_EQ(settings.folder_actions[0].id, kFolder);
}

TEST(PackageSettings, TheLastEntryForAnIdOrTypeInAMergeListWins) {
  package::PackageSettings settings = Parse(R"({
    "folderActions": [{"id": "98FE182C2A10427EACE0CD30B6768258", "action": "replace"},
                      {"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "delete"},
                      {"id": "98fe182c2a10427eace0cd30b6768258", "action": "keep_both"}],
    "objectTypeActions": [{"type": 4, "action": "replace"},
                          {"type": 4, "subtype": 1024, "action": "delete"},
                          {"type": 4, "action": "use_newer"}]})");
  EXPECT_EQ(ToJson(settings)["folderActions"], Json::parse(R"([
      {"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "delete"},
      {"id": "98FE182C2A10427EACE0CD30B6768258", "action": "keep_both"}])"));
  EXPECT_EQ(ToJson(settings)["objectTypeActions"], Json::parse(R"([
      {"type": 4, "subtype": 1024, "action": "delete"},
      {"type": 4, "action": "use_newer"}])"));
}

TEST(PackageSettings, UpdateSchemaMayBeNullOrEmptyForConfigurationPackages) {
  EXPECT_TRUE(Parse(R"({"updateSchema": null})", package::PackageKind::kConfiguration)
                  .update_schema.empty());
  EXPECT_TRUE(
      Parse(R"({"updateSchema": []})", package::PackageKind::kConfiguration).update_schema.empty());
}

TEST(PackageSettings, TheNormalisedFormParsesBackToItself) {
  Json normalised = ToJson(Parse(R"({
    "defaultAction": "use_newer", "updateSchema": "recal_table_logical_size",
    "aclOnReplacingObjects": null, "aclOnNewObjects": "inherit_acl_as_dest_folder",
    "folderActions": [{"id": "98fe182c2a10427eace0cd30b6768258", "action": "replace"}],
    "objectTypeActions": [{"type": 12, "subType": 3078, "action": "delete"}],
    "translationAction": "existing"})"));
  EXPECT_EQ(ToJson(package::ParsePackageSettings(normalised, package::PackageKind::kProject)),
            normalised);
}

// --- errors ----------------------------------------------------------------------------------

TEST(PackageSettings, AnUnknownDefaultActionNamesTheFieldAndTheAcceptedRules) {
  Error error = SettingsError(R"({"defaultAction": "merge"})");
  EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.defaultAction: 'merge' is not a conflict rule; "
            "expected one of use_existing, replace, keep_both, use_newer, use_older, "
            "force_replace, delete");
}

TEST(PackageSettings, ADefaultActionThatIsNotAStringIsRefused) {
  Error error = SettingsError(R"({"defaultAction": 3})");
  EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
  EXPECT_THAT(std::string(error.message()),
              HasSubstr("packageInfo.tocView.settings.defaultAction: '3' is not a conflict rule"));
}

TEST(PackageSettings, SettingsThatAreNotAnObjectAreRefused) {
  Error error = SettingsError(R"(["replace"])");
  EXPECT_EQ(error.message(), "packageInfo.tocView.settings: expected an object");
}

TEST(PackageSettings, UpdateSchemaStepsInAConfigurationPackageAreRefused) {
  Error error = SettingsError(R"({"updateSchema": ["recal_table_logical_size"]})",
                              package::PackageKind::kConfiguration);
  EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
  EXPECT_THAT(std::string(error.message()),
              HasSubstr("packageInfo.tocView.settings.updateSchema: a configuration package "
                        "updates no schema; expected null or []"));
}

TEST(PackageSettings, UpdateSchemaStepsInAProjectSecurityPackageAreRefused) {
  Error error = SettingsError(R"({"updateSchema": "update_schema_logical_info"})",
                              package::PackageKind::kProjectSecurity);
  EXPECT_THAT(std::string(error.message()),
              HasSubstr("updateSchema: a project_security package updates no schema"));
}

TEST(PackageSettings, AnUnknownUpdateSchemaStepIsRefusedWithItsIndex) {
  Error error = SettingsError(R"({"updateSchema": ["recal_table_logical_size", "recalc"]})");
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.updateSchema[1]: 'recalc' is not an update schema "
            "option; expected one of recal_table_keys_fact_entry_level, recal_table_logical_size, "
            "update_schema_logical_info");
}

TEST(PackageSettings, AnAclOptionForReplacedObjectsInAProjectSecurityPackageIsRefused) {
  Error error = SettingsError(R"({"aclOnReplacingObjects": "replace"})",
                              package::PackageKind::kProjectSecurity);
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.aclOnReplacingObjects: not supported for "
            "project_security packages; expected null");
}

TEST(PackageSettings, AnUnknownAclOptionForReplacedObjectsIsRefused) {
  Error error = SettingsError(R"({"aclOnReplacingObjects": "merge"})");
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.aclOnReplacingObjects: 'merge' is not an ACL option "
            "for replaced objects; expected one of use_existing, replace, keep_both");
}

TEST(PackageSettings, AnUnknownAclOptionForNewObjectsIsRefused) {
  Error error = SettingsError(R"({"aclOnNewObjects": ["inherit"]})");
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.aclOnNewObjects[0]: 'inherit' is not an ACL option for "
            "new objects; expected one of keep_acl_as_source_object, inherit_acl_as_dest_folder");
}

TEST(PackageSettings, AclOnNewObjectsOfAnotherShapeIsRefused) {
  Error error = SettingsError(R"({"aclOnNewObjects": {"value": "x"}})");
  EXPECT_THAT(std::string(error.message()),
              HasSubstr("packageInfo.tocView.settings.aclOnNewObjects: expected an array of "
                        "strings"));
}

TEST(PackageSettings, ValidateDependenciesMustBeABoolean) {
  Error error = SettingsError(R"({"validateDependencies": "yes"})");
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.validateDependencies: expected true or false");
}

TEST(PackageSettings, AnUnknownTranslationActionIsRefused) {
  Error error = SettingsError(R"({"translationAction": "merge"})");
  EXPECT_THAT(std::string(error.message()),
              HasSubstr("packageInfo.tocView.settings.translationAction: 'merge' is not a "
                        "translation action; expected one of not_merged, use_existing"));
}

TEST(PackageSettings, FolderActionsMustBeAnArrayOfIdAndAction) {
  Error error =
      SettingsError(R"({"folderActions": {"98FE182C2A10427EACE0CD30B6768258": "replace"}})");
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.folderActions: expected an array of {id, action}");
}

TEST(PackageSettings, AFolderActionWithABadIdNamesItsIndex) {
  Error error = SettingsError(R"({"folderActions": [{"id": "Sales", "action": "replace"}]})");
  EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.folderActions[0].id: 'Sales' is not an object id; "
            "expected 32 hexadecimal characters");
}

TEST(PackageSettings, AFolderActionWithAnUnknownRuleNamesItsIndex) {
  Error error = SettingsError(R"({"folderActions": [
      {"id": "98FE182C2A10427EACE0CD30B6768258", "action": "replace"},
      {"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "do_not_move"}]})");
  EXPECT_THAT(std::string(error.message()),
              HasSubstr("packageInfo.tocView.settings.folderActions[1].action: 'do_not_move' is "
                        "not a conflict rule; expected one of use_existing"));
}

TEST(PackageSettings, AnObjectActionWithoutAnIdIsAMissingField) {
  Error error = SettingsError(R"({"objectActions": [{"action": "replace"}]})");
  EXPECT_EQ(error.code(), ErrorCode::kMissingField);
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.objectActions[0].id: required field is missing");
}

TEST(PackageSettings, AnObjectActionWithoutAnActionIsAMissingField) {
  Error error = SettingsError(R"({"objectActions": [{"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE"}]})");
  EXPECT_EQ(error.code(), ErrorCode::kMissingField);
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.objectActions[0].action: required field is missing");
}

TEST(PackageSettings, AnObjectTypeActionWithoutATypeIsAMissingField) {
  Error error = SettingsError(R"({"objectTypeActions": [{"action": "replace"}]})");
  EXPECT_EQ(error.code(), ErrorCode::kMissingField);
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.objectTypeActions[0].type: required field is missing");
}

TEST(PackageSettings, AnObjectTypeActionTypeMustBeATypeCode) {
  Error error = SettingsError(R"({"objectTypeActions": [{"type": 1024, "action": "replace"}]})");
  EXPECT_THAT(std::string(error.message()),
              HasSubstr("packageInfo.tocView.settings.objectTypeActions[0].type: 1024 is not an "
                        "object type; expected a type code from 1 to 255"));
  Error text = SettingsError(R"({"objectTypeActions": [{"type": "metric", "action": "replace"}]})");
  EXPECT_EQ(text.message(),
            "packageInfo.tocView.settings.objectTypeActions[0].type: expected an integer");
}

TEST(PackageSettings, AnObjectTypeActionSubtypeMustBelongToItsType) {
  Error error = SettingsError(
      R"({"objectTypeActions": [{"type": 4, "subType": 3072, "action": "replace"}]})");
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.objectTypeActions[0].subType: 3072 is not a subtype of "
            "type 4; expected a value from 1024 to 1279");
}

TEST(PackageSettings, DisagreeingSubtypeAndSubTypeAreRefused) {
  Error error = SettingsError(R"({"objectTypeActions": [
      {"type": 4, "subtype": 1024, "subType": 1025, "action": "replace"}]})");
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.settings.objectTypeActions[0].subType: disagrees with subtype; "
            "send one of them");
}

TEST(PackageSettings, MessagesUseTheGivenFieldPath) {
  Error error = Thrown([] {
    package::ParsePackageSettings(Json::parse(R"({"defaultAction": "x"})"),
                                  package::PackageKind::kProject, "manifest.settings");
  });
  EXPECT_THAT(std::string(error.message()), HasSubstr("manifest.settings.defaultAction: 'x'"));
}

// --- content ---------------------------------------------------------------------------------

TEST(PackageContent, ReadsItemsWithDefaultsForOptionalFields) {
  std::vector<package::ContentItem> items = package::ParseContent(Json::parse(R"([
      {"id": "3e5a7c9b1d2f43658798a9bacbdcedfe", "name": "Revenue", "type": 4,
       "action": "replace", "includeDependents": true},
      {"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "use_existing",
       "version": "51C0A2E48D9F4B17A3E6C5D2B1F09E87", "explicitIncluded": true}])"));
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].id, kMetric);
  EXPECT_EQ(items[0].name, "Revenue");
  EXPECT_EQ(items[0].type, 4);
  EXPECT_EQ(items[0].action, package::ConflictRule::kReplace);
  EXPECT_TRUE(items[0].include_dependents);
  EXPECT_EQ(items[1].id, kReport);
  EXPECT_EQ(items[1].name, "");
  EXPECT_EQ(items[1].type, std::nullopt);
  EXPECT_FALSE(items[1].include_dependents);
  EXPECT_EQ(ToJson(items[0]), Json::parse(R"({"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE",
      "name": "Revenue", "type": 4, "action": "replace", "includeDependents": true})"));
  EXPECT_EQ(ToJson(items[1]), Json::parse(R"({"id": "C3B2A1908F7E4D6C5B4A39281706F5E4",
      "name": "", "action": "use_existing", "includeDependents": false})"));
}

TEST(PackageContent, NullContentIsEmpty) { EXPECT_TRUE(package::ParseContent(nullptr).empty()); }

TEST(PackageContent, DuplicateIdsAreRefusedNamingEachOnce) {
  Error error = ContentError(R"([
      {"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "replace"},
      {"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "replace"},
      {"id": "3e5a7c9b1d2f43658798a9bacbdcedfe", "action": "delete"},
      {"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "replace"},
      {"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "replace"}])");
  EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.content: an object may be listed once; listed more than once: "
            "3E5A7C9B1D2F43658798A9BACBDCEDFE, C3B2A1908F7E4D6C5B4A39281706F5E4");
}

TEST(PackageContent, AnItemWithoutAnActionIsAMissingField) {
  Error error = ContentError(R"([{"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE"}])");
  EXPECT_EQ(error.code(), ErrorCode::kMissingField);
  EXPECT_EQ(error.message(), "packageInfo.tocView.content[0].action: required field is missing");
}

TEST(PackageContent, AnItemWithoutAnIdIsAMissingField) {
  Error error = ContentError(R"([{"action": "replace"}])");
  EXPECT_EQ(error.code(), ErrorCode::kMissingField);
  EXPECT_EQ(error.message(), "packageInfo.tocView.content[0].id: required field is missing");
}

TEST(PackageContent, AnItemWithAnUnknownActionNamesItsIndex) {
  Error error = ContentError(R"([
      {"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "replace"},
      {"id": "C3B2A1908F7E4D6C5B4A39281706F5E4", "action": "merge"}])");
  EXPECT_THAT(std::string(error.message()),
              HasSubstr("packageInfo.tocView.content[1].action: 'merge' is not a conflict rule; "
                        "expected one of"));
}

TEST(PackageContent, AnItemWithABadIdIsRefused) {
  Error error = ContentError(R"([{"id": "3E5A7C9B1D2F43658798A9BACBDCEDF", "action": "replace"}])");
  EXPECT_EQ(error.message(),
            "packageInfo.tocView.content[0].id: '3E5A7C9B1D2F43658798A9BACBDCEDF' is not an "
            "object id; expected 32 hexadecimal characters");
}

TEST(PackageContent, FieldsOfTheWrongTypeAreRefused) {
  EXPECT_EQ(ContentError(R"([{"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "replace",
                              "type": "metric"}])")
                .message(),
            "packageInfo.tocView.content[0].type: expected an integer");
  EXPECT_EQ(ContentError(R"([{"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "replace",
                              "includeDependents": "yes"}])")
                .message(),
            "packageInfo.tocView.content[0].includeDependents: expected true or false");
  EXPECT_EQ(ContentError(R"([{"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE", "action": "replace",
                              "name": 7}])")
                .message(),
            "packageInfo.tocView.content[0].name: expected a string");
  EXPECT_EQ(ContentError(R"({"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE"})").message(),
            "packageInfo.tocView.content: expected an array of content items {id, action, ...}");
  EXPECT_EQ(ContentError(R"(["3E5A7C9B1D2F43658798A9BACBDCEDFE"])").message(),
            "packageInfo.tocView.content[0]: expected an object");
}

// --- keep_both anywhere ----------------------------------------------------------------------

TEST(UsesKeepBoth, IsFalseWhenNoRuleIsKeepBoth) {
  package::PackageSettings settings = Parse(R"({"defaultAction": "replace",
      "folderActions": [{"id": "98FE182C2A10427EACE0CD30B6768258", "action": "delete"}]})");
  EXPECT_FALSE(package::UsesKeepBoth(
      settings, {{kMetric, "", 4, package::ConflictRule::kForceReplace, true}}));
}

TEST(UsesKeepBoth, FindsKeepBothInTheDefaultAction) {
  EXPECT_TRUE(package::UsesKeepBoth(Parse(R"({"defaultAction": "keep_both"})"), {}));
}

TEST(UsesKeepBoth, FindsKeepBothInAContentItem) {
  EXPECT_TRUE(package::UsesKeepBoth(Parse("{}"),
                                    {{kMetric, "", 4, package::ConflictRule::kUseExisting, false},
                                     {kReport, "", 3, package::ConflictRule::kKeepBoth, false}}));
}

TEST(UsesKeepBoth, FindsKeepBothInAFolderAction) {
  EXPECT_TRUE(
      package::UsesKeepBoth(Parse(R"({"folderActions": [{"id": "98FE182C2A10427EACE0CD30B6768258",
                                   "action": "keep_both"}]})"),
                            {}));
}

TEST(UsesKeepBoth, FindsKeepBothInAnObjectAction) {
  EXPECT_TRUE(
      package::UsesKeepBoth(Parse(R"({"objectActions": [{"id": "3E5A7C9B1D2F43658798A9BACBDCEDFE",
                                   "action": "keep_both"}]})"),
                            {}));
}

TEST(UsesKeepBoth, FindsKeepBothInAnObjectTypeAction) {
  EXPECT_TRUE(package::UsesKeepBoth(
      Parse(R"({"objectTypeActions": [{"type": 4, "action": "keep_both"}]})"), {}));
}

}  // namespace
}  // namespace tessera::model::package
