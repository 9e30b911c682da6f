// app/progress_bar.h
//
// The progress of a command step that may take more than a second, written to stderr so that
// stdout keeps only the command's results.
//
// Contract:
//   - On a terminal (by default: when stderr is one), one line is redrawn in place ("\r"):
//       "<label> [############                  ]  40%"   Update(): a known fraction
//       "<label> ... 3 s"                                 Tick(): an unknown one, elapsed seconds
//     It is redrawn only when what it shows changes. Finish(outcome) replaces it with
//     "<label>: <outcome>" and ends the line.
//   - Elsewhere (a pipe, a file, a test), plain lines only, nothing is erased: "<label> ..." when
//     the first Update() or Tick() comes, "<label>: N%" each time the fraction passes 25, 50 or
//     75, and "<label>: <outcome>" at Finish.
//   - A bar destroyed without Finish (an exception is on its way) ends its line on a terminal, so
//     that the error starts on a line of its own.
//   - Percentages are clamped to 0..100. Not thread-safe.
//   - TickWhile(bar, work) runs `work` on another thread, ticking `bar` from the calling thread
//     every 200 ms until it ends (and once at once), and returns what `work` returned or throws
//     what it threw: the progress of a step that counts nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <future>
#include <iosfwd>
#include <string>
#include <utility>

namespace tessera::app {

class ProgressBar {
 public:
  // Draws on std::cerr, as a terminal when stderr is one.
  explicit ProgressBar(std::string label);
  ProgressBar(std::string label, std::ostream& out, bool terminal);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void Update(int percent);
  void Update(int64_t done, int64_t total);  // total <= 0 counts as done
  void Tick();
  void Finish(const std::string& outcome);

 private:
  void Start();
  void Draw(const std::string& text);

  std::string label_;
  std::ostream& out_;
  bool terminal_;
  bool started_ = false;
  bool finished_ = false;
  int shown_percent_ = -1;
  int64_t shown_seconds_ = -1;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

template <typename Work>
auto TickWhile(ProgressBar& bar, Work&& work) {
  bar.Tick();
  auto result = std::async(std::launch::async, std::forward<Work>(work));
  while (result.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready) bar.Tick();
  return result.get();
}

}  // namespace tessera::app
