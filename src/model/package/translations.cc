#include "model/package/translations.h"

#include <string>

#include "core/error.h"

namespace tessera::model::package {

namespace {

// Validates the {locale: {key: value}} shape; null is the empty set.
Json Normalised(const Json& translations, const char* side) {
  if (translations.is_null()) return Json::object();
  if (!translations.is_object()) {
    throw Error(ErrorCode::kInvalidInput,
                std::string(side) + " definition.translations: expected an object of locales");
  }
  for (const auto& [locale, values] : translations.items()) {
    if (!values.is_object()) {
      throw Error(ErrorCode::kInvalidInput,
                  std::string(side) + " definition.translations." + locale +
                      ": expected an object such as {\"name\": ..., \"description\": ...}");
    }
  }
  return translations;
}

// Copies every locale and key of `source` into `merged`; existing keys are overwritten only
// when `source_wins`.
void AddFrom(Json& merged, const Json& source, bool source_wins) {
  for (const auto& [locale, values] : source.items()) {
    Json& into = merged[locale];
    if (into.is_null()) into = Json::object();
    for (const auto& [key, value] : values.items()) {
      if (source_wins || !into.contains(key)) into[key] = value;
    }
  }
}

}  // namespace

Json TranslationsOf(const Json& definition) {
  if (!definition.is_object()) return Json::object();
  auto it = definition.find("translations");
  if (it == definition.end() || it->is_null()) return Json::object();
  return *it;
}

MergedTranslations MergeTranslations(const Json& target, const Json& source,
                                     TranslationAction action) {
  Json before = Normalised(target, "target");
  Json from = Normalised(source, "source");
  Json merged = before;
  switch (action) {
    case TranslationAction::kNotMerged:
      break;
    case TranslationAction::kUseExisting:
      AddFrom(merged, from, /*source_wins=*/false);
      break;
    case TranslationAction::kReplace:
      AddFrom(merged, from, /*source_wins=*/true);
      break;
    case TranslationAction::kForceReplace:
      merged = from;
      break;
  }
  // Key order carries no meaning: compare as unordered JSON.
  if (nlohmann::json(merged) == nlohmann::json(before)) return {std::move(before), false};
  return {std::move(merged), true};
}

}  // namespace tessera::model::package
