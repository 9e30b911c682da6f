#include "service/dashboard/visualization_address.h"

#include <string>

#include "core/error.h"
#include "core/strings.h"

namespace tessera::service::dashboard {

namespace {

const model::Chapter* FindChapter(const model::Dashboard& dashboard, std::string_view key) {
  for (const auto& chapter : dashboard.chapters) {
    if (chapter.key == key) return &chapter;
  }
  return nullptr;
}

const model::Chapter* ChapterOfPage(const model::Dashboard& dashboard, std::string_view key) {
  for (const auto& chapter : dashboard.chapters) {
    for (const auto& page : chapter.pages) {
      if (page.key == key) return &chapter;
    }
  }
  return nullptr;
}

// What `chapter_key` is, when it is not the key of a chapter.
std::string WhatTheKeyIs(const model::Dashboard& dashboard, std::string_view chapter_key) {
  if (const model::Chapter* of = ChapterOfPage(dashboard, chapter_key)) {
    return Quoted(chapter_key) + " is a page key (of chapter " + Quoted(of->key) +
           "); the path takes a chapter key";
  }
  return Quoted(chapter_key) + " is not a chapter key of this dashboard";
}

}  // namespace

void CheckVisualizationAddress(const model::Dashboard& dashboard, std::string_view chapter_key,
                               std::string_view visualization_key) {
  const model::Chapter* holder = dashboard.ChapterOfVisualization(visualization_key);
  if (!holder) {
    throw Error(ErrorCode::kNotFound,
                Quoted(visualization_key) + " is not a visualization key of this dashboard");
  }
  if (holder->key == chapter_key) return;
  if (!FindChapter(dashboard, chapter_key)) {
    throw Error(ErrorCode::kNotFound, WhatTheKeyIs(dashboard, chapter_key) + ": visualization " +
                                          Quoted(visualization_key) + " is in chapter " +
                                          Quoted(holder->key));
  }
  throw Error(ErrorCode::kNotFound, "Visualization " + Quoted(visualization_key) +
                                        " is not in chapter " + Quoted(chapter_key) +
                                        "; it is in chapter " + Quoted(holder->key));
}

}  // namespace tessera::service::dashboard
