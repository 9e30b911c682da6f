// The progress bar of long commands: drawn in place on a terminal, plain lines elsewhere.
#include "app/progress_bar.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tessera::app {
namespace {

TEST(ProgressBar, OnATerminalRedrawsOneLineAndEndsItWithTheOutcome) {
  std::ostringstream out;
  {
    ProgressBar bar("importing", out, /*terminal=*/true);
    bar.Update(0);
    bar.Update(40);
    bar.Update(40);  // unchanged: not drawn again
    bar.Update(150);
    bar.Finish("done");
  }
  const std::string clear = "\033[K";
  EXPECT_EQ(out.str(), "\rimporting [                              ]   0%" + clear +
                           "\rimporting [############                  ]  40%" + clear +
                           "\rimporting [##############################] 100%" + clear +
                           "\rimporting: done" + clear + "\n");
}

TEST(ProgressBar, ElsewhereWritesPlainLinesAtEachQuarter) {
  std::ostringstream out;
  ProgressBar bar("creating the package", out, /*terminal=*/false);
  bar.Update(10);
  bar.Update(60);
  bar.Update(1, 1);
  bar.Finish("done");
  EXPECT_EQ(out.str(),
            "creating the package ...\n"
            "creating the package: 25%\n"
            "creating the package: 50%\n"
            "creating the package: 75%\n"
            "creating the package: done\n");
}

TEST(ProgressBar, WithoutAKnownFractionShowsTheElapsedSecondsOnATerminalOnly) {
  std::ostringstream terminal, plain;
  ProgressBar drawn("previewing", terminal, true);
  ProgressBar written("previewing", plain, false);
  drawn.Tick();
  drawn.Tick();  // the same second: not drawn again
  written.Tick();
  written.Tick();
  EXPECT_EQ(terminal.str(), "\rpreviewing ... 0 s\033[K");
  EXPECT_EQ(plain.str(), "previewing ...\n");
}

TEST(ProgressBar, AnAbandonedBarEndsItsLineSoTheErrorStartsOnItsOwn) {
  std::ostringstream out;
  { ProgressBar("publishing", out, true).Update(50); }
  EXPECT_EQ(out.str(), "\rpublishing [###############               ]  50%\033[K\n");
}

TEST(ProgressBar, ATotalOfZeroCountsAsDone) {
  std::ostringstream out;
  ProgressBar bar("copying", out, true);
  bar.Update(0, 0);
  EXPECT_NE(out.str().find("100%"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace tessera::app
