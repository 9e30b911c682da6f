#include "app/tutorial_copy.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

namespace tessera::testing {

void WriteChangedTutorial(const std::filesystem::path& to) {
  std::filesystem::copy(kTutorialBundleDir, to, std::filesystem::copy_options::recursive);
  std::ofstream(to / "reports" / "zz-extra-report.yaml")
      << "name: Extra Report\nrows: [Year]\ncolumns: [Revenue]\n";
  const std::filesystem::path report = to / "reports" / "western-europe-by-country.yaml";
  std::ifstream in(report);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const size_t at = text.find(kWesternEuropeDescription);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, kWesternEuropeDescription.size(), kChangedWesternEuropeDescription);
  std::ofstream(report) << text;
}

}  // namespace tessera::testing
