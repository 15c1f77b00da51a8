// Progress of a long run on stderr: phase, done/total, rate and ETA. A Progress is passed
// down explicitly (a nullable pointer: nullptr reports nothing); there is no global state.
// Nothing is written before `delay` has passed since the Progress was made, so short runs
// stay silent; afterwards at most one line per `interval`, plus the line of each finished
// phase. On a terminal the line is redrawn in place ('\r'); otherwise each report is a line.
// phase() and finish() are called from the thread that runs the phases; advance() may be
// called from worker threads too (it takes a lock).
#pragma once
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <string>
#include <utility>

namespace seqi {

class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  Progress(std::ostream& out, bool terminal, Clock::duration delay,
           Clock::duration interval = std::chrono::milliseconds(250));
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Starts a phase of `total` steps (0: unknown count; only the elapsed time is shown).
  // Ends the previous phase.
  void phase(std::string name, std::size_t total);
  // Counts `steps` more steps done in the current phase.
  void advance(std::size_t steps = 1);
  // Ends the current phase (its final line when anything was shown); idempotent.
  void finish();

 private:
  void report(Clock::time_point now);
  void finish_locked();
  void tick();  // the ticker thread: a line per interval while a phase is open

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::ostream& out_;
  bool terminal_;
  Clock::duration delay_, interval_;
  Clock::time_point created_, phase_start_, last_report_;
  std::string name_;
  std::size_t total_ = 0, done_ = 0;
  bool open_ = false;           // a phase is running
  bool shown_ = false;          // the current phase has been reported at least once
  bool line_pending_ = false;   // terminal: a '\r' line is drawn without its newline
  std::thread ticker_;          // started last, joined first
};

// One-line helpers for the nullable pointer the engine passes down.
inline void progress_phase(Progress* p, std::string name, std::size_t total) {
  if (p) p->phase(std::move(name), total);
}
inline void progress_advance(Progress* p, std::size_t steps = 1) {
  if (p) p->advance(steps);
}

}  // namespace seqi
