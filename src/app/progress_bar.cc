#include "app/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>

namespace tessera::app {

namespace {

constexpr int kBarWidth = 30;

std::string Bar(int percent) {
  const int filled = percent * kBarWidth / 100;
  std::string text = "[" + std::string(filled, '#') + std::string(kBarWidth - filled, ' ') + "] ";
  const std::string number = std::to_string(percent);
  return text + std::string(3 - std::min<size_t>(3, number.size()), ' ') + number + "%";
}

}  // namespace

ProgressBar::ProgressBar(std::string label)
    : ProgressBar(std::move(label), std::cerr, isatty(STDERR_FILENO) == 1) {}

ProgressBar::ProgressBar(std::string label, std::ostream& out, bool terminal)
    : label_(std::move(label)), out_(out), terminal_(terminal) {}

ProgressBar::~ProgressBar() {
  if (terminal_ && started_ && !finished_) out_ << "\n" << std::flush;
}

void ProgressBar::Start() {
  if (started_) return;
  started_ = true;
  if (!terminal_) out_ << label_ << " ...\n" << std::flush;
}

void ProgressBar::Draw(const std::string& text) {
  // "\033[K" clears what a longer previous text left on the line.
  out_ << "\r" << label_ << " " << text << "\033[K" << std::flush;
}

void ProgressBar::Update(int percent) {
  percent = std::clamp(percent, 0, 100);
  Start();
  if (percent == shown_percent_) return;
  if (terminal_) {
    Draw(Bar(percent));
  } else {
    for (int mark : {25, 50, 75}) {
      if (shown_percent_ < mark && percent >= mark) {
        out_ << label_ << ": " << mark << "%\n" << std::flush;
      }
    }
  }
  shown_percent_ = percent;
}

void ProgressBar::Update(int64_t done, int64_t total) {
  Update(total <= 0 ? 100 : static_cast<int>(std::clamp<int64_t>(done, 0, total) * 100 / total));
}

void ProgressBar::Tick() {
  Start();
  if (!terminal_) return;
  const int64_t seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start_)
          .count();
  if (seconds == shown_seconds_) return;
  shown_seconds_ = seconds;
  Draw("... " + std::to_string(seconds) + " s");
}

void ProgressBar::Finish(const std::string& outcome) {
  if (finished_) return;
  finished_ = true;
  if (terminal_ && started_) out_ << "\r";
  out_ << label_ << ": " << outcome;
  // A line drawn in place may be longer than the outcome: clear the rest of it.
  if (terminal_ && started_) out_ << "\033[K";
  out_ << "\n" << std::flush;
}

}  // namespace tessera::app
