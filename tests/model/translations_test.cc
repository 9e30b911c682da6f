#include "model/translations.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace tessera::model {
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
  MergedTranslations merged = MergeTranslations(kTarget, kSource, TranslationAction::kNotMerged);
  EXPECT_EQ(merged.translations, kTarget);
  EXPECT_FALSE(merged.changed);
}

TEST(MergeTranslations, UseExistingAddsMissingLocalesAndKeysAndKeepsTargetValues) {
  MergedTranslations merged = MergeTranslations(kTarget, kSource, TranslationAction::kUseExisting);
  EXPECT_EQ(merged.translations, Json::parse(R"({
    "de-DE": {"name": "Umsatz", "description": "Umsatz im Ziel"},
    "fr-FR": {"name": "Chiffre", "description": "Chiffre d'affaires"},
    "es-ES": {"name": "Ingresos"}
  })"));
  EXPECT_TRUE(merged.changed);
}

TEST(MergeTranslations, ReplaceLetsTheSourceWinWhereBothHaveAKey) {
  MergedTranslations merged = MergeTranslations(kTarget, kSource, TranslationAction::kReplace);
  EXPECT_EQ(merged.translations, Json::parse(R"({
    "de-DE": {"name": "Erlös", "description": "Umsatz im Ziel"},
    "fr-FR": {"name": "Chiffre", "description": "Chiffre d'affaires"},
    "es-ES": {"name": "Ingresos"}
  })"));
  EXPECT_TRUE(merged.changed);
}

TEST(MergeTranslations, ReplaceKeepsLocalesOnlyTheTargetHas) {
  MergedTranslations merged = MergeTranslations(
      kTarget, Json::parse(R"({"es-ES": {"name": "Ingresos"}})"), TranslationAction::kReplace);
  EXPECT_EQ(merged.translations["fr-FR"], Json::parse(R"({"name": "Chiffre"})"));
  EXPECT_EQ(merged.translations["es-ES"], Json::parse(R"({"name": "Ingresos"})"));
}

TEST(MergeTranslations, ForceReplaceMakesTheTargetExactlyTheSourceSet) {
  MergedTranslations merged = MergeTranslations(kTarget, kSource, TranslationAction::kForceReplace);
  EXPECT_EQ(merged.translations, kSource);
  EXPECT_TRUE(merged.changed);
}

TEST(MergeTranslations, ForceReplaceWithNoSourceTranslationsRemovesThemAll) {
  MergedTranslations merged = MergeTranslations(kTarget, nullptr, TranslationAction::kForceReplace);
  EXPECT_EQ(merged.translations, Json::object());
  EXPECT_TRUE(merged.changed);
}

TEST(MergeTranslations, NothingChangesWhenTheTargetAlreadyHasEverything) {
  Json same = kTarget;
  EXPECT_FALSE(MergeTranslations(kTarget, same, TranslationAction::kUseExisting).changed);
  EXPECT_FALSE(MergeTranslations(kTarget, same, TranslationAction::kReplace).changed);
  EXPECT_FALSE(MergeTranslations(kTarget, same, TranslationAction::kForceReplace).changed);
}

TEST(MergeTranslations, LocaleOrderIsNoChange) {
  Json reordered = Json::parse(R"({
    "fr-FR": {"name": "Chiffre"},
    "de-DE": {"description": "Umsatz im Ziel", "name": "Umsatz"}
  })");
  MergedTranslations merged =
      MergeTranslations(kTarget, reordered, TranslationAction::kForceReplace);
  EXPECT_FALSE(merged.changed);
  EXPECT_EQ(merged.translations.dump(), kTarget.dump());
}

TEST(MergeTranslations, AbsentTargetTranslationsAreAnEmptySet) {
  MergedTranslations merged = MergeTranslations(nullptr, kSource, TranslationAction::kUseExisting);
  EXPECT_EQ(merged.translations, kSource);
  EXPECT_TRUE(merged.changed);
}

TEST(MergeTranslations, TranslationsOfAnotherShapeAreRefusedNamingTheLocale) {
  try {
    MergeTranslations(kTarget, Json::parse(R"({"de-DE": "Erlös"})"), TranslationAction::kReplace);
    FAIL() << "accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(error.message(),
              "source definition.translations.de-DE: expected an object such as {\"name\": ..., "
              "\"description\": ...}");
  }
  try {
    MergeTranslations(Json::array(), kSource, TranslationAction::kReplace);
    FAIL() << "accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.message(), "target definition.translations: expected an object of locales");
  }
}

TEST(TranslationsOf, ReadsTheDefinitionsTranslationsOrNone) {
  EXPECT_EQ(TranslationsOf(Json::parse(R"({"fact": "X", "translations": {"de-DE": {}}})")),
            Json::parse(R"({"de-DE": {}})"));
  EXPECT_EQ(TranslationsOf(Json::parse(R"({"fact": "X"})")), Json::object());
  EXPECT_EQ(TranslationsOf(Json::parse(R"({"translations": null})")), Json::object());
}

}  // namespace
}  // namespace tessera::model
