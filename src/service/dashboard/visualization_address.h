// service/dashboard/visualization_address.h
//
// A visualization of a dashboard instance is addressed by two keys, its chapter's and its own
// (.../chapters/{chapterKey}/visualizations/{visualizationKey}). CheckVisualizationAddress is
// silent when the chapter holds the visualization; otherwise it throws Error(kNotFound) saying
// what is wrong and what is accepted:
//   - "'W99' is not a visualization key of this dashboard";
//   - "'K2' is a page key (of chapter 'K1'); the path takes a chapter key: visualization 'W4' is
//     in chapter 'K1'";
//   - "'K9' is not a chapter key of this dashboard: visualization 'W4' is in chapter 'K1'";
//   - "Visualization 'W7' is not in chapter 'K1'; it is in chapter 'K4'".
#pragma once

#include <string_view>

#include "model/dashboard.h"

namespace tessera::service::dashboard {

void CheckVisualizationAddress(const model::Dashboard& dashboard, std::string_view chapter_key,
                               std::string_view visualization_key);

}  // namespace tessera::service::dashboard
