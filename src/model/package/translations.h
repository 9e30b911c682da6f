// model/package/translations.h
//
// Per-locale translations of an object's name and description. They live in the object's
// definition as
//   "translations": {"<locale>": {"name": "...", "description": "..."}, ...}
// (both keys optional) and are part of the object, so changing them is a save. A project merge
// reconciles them for objects present in both projects, whatever the object's own rule decided:
//   not_merged     the target's translations stay as they are;
//   use_existing   locales and keys the target lacks are added from the source; the target's
//                  values stay;
//   replace        the union, the source's value winning where both have a key;
//   force_replace  exactly the source's set.
// Absent or null translations are an empty set; anything but an object of objects throws
// Error(kInvalidInput) naming the locale.
#pragma once

#include "core/json.h"
#include "model/package/settings.h"

namespace tessera::model::package {

struct MergedTranslations {
  Json translations = Json::object();
  bool changed = false;  // differs from the target's translations
};

// definition["translations"], or an empty object when absent or null.
Json TranslationsOf(const Json& definition);

MergedTranslations MergeTranslations(const Json& target, const Json& source,
                                     TranslationAction action);

}  // namespace tessera::model::package
