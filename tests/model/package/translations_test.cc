#include "model/package/translations.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace tessera::model::package {
namespace {

const Json kTarget = Json::parse(R"({
  "de-DE": {"name": "Umsatz", "description": "Umsatz im Ziel"},
  "fr-FR": {"name": "Chiffre"}
})");

const Json kSource = Json::parse(R"({
  "de-DE": {"name": "Erlös"},
  "fr-FR": {"name": "Chiffre", "description": "Chiffre d'affaires"},
  "es-ES": {"name": "Ingresos"}
})");

TEST(MergeTranslations, NotMergedLeavesTheTargetAsItIs) {
  package::MergedTranslations merged =
      package::MergeTranslations(kTarget, kSource, package::TranslationAction::kNotMerged);
  EXPECT_EQ(merged.translations, kTarget);
  EXPECT_FALSE(merged.changed);
}

TEST(MergeTranslations, UseExistingAddsMissingLocalesAndKeysAndKeepsTargetValues) {
  package::MergedTranslations merged =
      package::MergeTranslations(kTarget, kSource, package::TranslationAction::kUseExisting);
  EXPECT_EQ(merged.translations, Json::parse(R"({
    "de-DE": {"name": "Umsatz", "description": "Umsatz im Ziel"},
    "fr-FR": {"name": "Chiffre", "description": "Chiffre d'affaires"},
    "es-ES": {"name": "Ingresos"}
  })"));
  EXPECT_TRUE(merged.changed);
}

TEST(MergeTranslations, ReplaceLetsTheSourceWinWhereBothHaveAKey) {
  package::MergedTranslations merged =
      package::MergeTranslations(kTarget, kSource, package::TranslationAction::kReplace);
  EXPECT_EQ(merged.translations, Json::parse(R"({
    "de-DE": {"name": "Erlös", "description": "Umsatz im Ziel"},
    "fr-FR": {"name": "Chiffre", "description": "Chiffre d'affaires"},
    "es-ES": {"name": "Ingresos"}
  })"));
  EXPECT_TRUE(merged.changed);
}

TEST(MergeTranslations, ReplaceKeepsLocalesOnlyTheTargetHas) {
  package::MergedTranslations merged =
      package::MergeTranslations(kTarget, Json::parse(R"({"es-ES": {"name": "Ingresos"}})"),
                                 package::TranslationAction::kReplace);
  EXPECT_EQ(merged.translations["fr-FR"], Json::parse(R"({"name": "Chiffre"})"));
  EXPECT_EQ(merged.translations["es-ES"], Json::parse(R"({"name": "Ingresos"})"));
}

TEST(MergeTranslations, ForceReplaceMakesTheTargetExactlyTheSourceSet) {
  package::MergedTranslations merged =
      package::MergeTranslations(kTarget, kSource, package::TranslationAction::kForceReplace);
  EXPECT_EQ(merged.translations, kSource);
  EXPECT_TRUE(merged.changed);
}

TEST(MergeTranslations, ForceReplaceWithNoSourceTranslationsRemovesThemAll) {
  package::MergedTranslations merged =
      package::MergeTranslations(kTarget, nullptr, package::TranslationAction::kForceReplace);
  EXPECT_EQ(merged.translations, Json::object());
  EXPECT_TRUE(merged.changed);
}

TEST(MergeTranslations, NothingChangesWhenTheTargetAlreadyHasEverything) {
  Json same = kTarget;
  EXPECT_FALSE(
      package::MergeTranslations(kTarget, same, package::TranslationAction::kUseExisting).changed);
  EXPECT_FALSE(
      package::MergeTranslations(kTarget, same, package::TranslationAction::kReplace).changed);
  EXPECT_FALSE(
      package::MergeTranslations(kTarget, same, package::TranslationAction::kForceReplace).changed);
}

TEST(MergeTranslations, LocaleOrderIsNoChange) {
  Json reordered = Json::parse(R"({
    "fr-FR": {"name": "Chiffre"},
    "de-DE": {"description": "Umsatz im Ziel", "name": "Umsatz"}
  })");
  package::MergedTranslations merged =
      package::MergeTranslations(kTarget, reordered, package::TranslationAction::kForceReplace);
  EXPECT_FALSE(merged.changed);
  EXPECT_EQ(merged.translations.dump(), kTarget.dump());
}

TEST(MergeTranslations, AbsentTargetTranslationsAreAnEmptySet) {
  package::MergedTranslations merged =
      package::MergeTranslations(nullptr, kSource, package::TranslationAction::kUseExisting);
  EXPECT_EQ(merged.translations, kSource);
  EXPECT_TRUE(merged.changed);
}

TEST(MergeTranslations, TranslationsOfAnotherShapeAreRefusedNamingTheLocale) {
  try {
    package::MergeTranslations(kTarget, Json::parse(R"({"de-DE": "Erlös"})"),
                               package::TranslationAction::kReplace);
    FAIL() << "accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(error.message(),
              "source definition.translations.de-DE: expected an object such as {\"name\": ..., "
              "\"description\": ...}");
  }
  try {
    package::MergeTranslations(Json::array(), kSource, package::TranslationAction::kReplace);
    FAIL() << "accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.message(), "target definition.translations: expected an object of locales");
  }
}

TEST(TranslationsOf, ReadsTheDefinitionsTranslationsOrNone) {
  EXPECT_EQ(package::TranslationsOf(Json::parse(R"({"fact": "X", "translations": {"de-DE": {}}})")),
            Json::parse(R"({"de-DE": {}})"));
  EXPECT_EQ(package::TranslationsOf(Json::parse(R"({"fact": "X"})")), Json::object());
  EXPECT_EQ(package::TranslationsOf(Json::parse(R"({"translations": null})")), Json::object());
}

}  // namespace
}  // namespace tessera::model::package
