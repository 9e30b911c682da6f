// tests/app/tutorial_copy.h
//
// Copies of the Tutorial bundle (demo/tutorial) that differ from it in ways a test can see over
// the REST API.
#pragma once

#include <filesystem>
#include <string>

namespace tessera::testing {

inline const std::filesystem::path kTutorialBundleDir = TESSERA_SOURCE_DIR "/demo/tutorial";

// The description of "Western Europe by Country" in the Tutorial bundle, and in a changed copy.
inline const std::string kWesternEuropeDescription =
    "Revenue and margin of the countries of Western Europe";
inline const std::string kChangedWesternEuropeDescription =
    "Changed revenue and margin of the countries of Western Europe";

// The Tutorial bundle copied to `to`, with one more warehouse report, "Extra Report" (Revenue by
// Year), and the changed description of "Western Europe by Country".
void WriteChangedTutorial(const std::filesystem::path& to);

}  // namespace tessera::testing
