#include "seqi/core/progress.hpp"

#include <cstdio>
#include <ostream>

namespace seqi {
namespace {

double seconds(Progress::Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string fixed1(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

}  // namespace

Progress::Progress(std::ostream& out, bool terminal, Clock::duration delay, Clock::duration interval)
    : out_(out), terminal_(terminal), delay_(delay), interval_(interval), created_(Clock::now()) {
  ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  ticker_.join();
  finish();
}

void Progress::tick() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, interval_);
    const auto now = Clock::now();
    if (!stop_ && open_ && now - created_ >= delay_ && (!shown_ || now - last_report_ >= interval_)) report(now);
  }
}

void Progress::phase(std::string name, std::size_t total) {
  const std::lock_guard lock(mutex_);
  finish_locked();
  name_ = std::move(name);
  total_ = total;
  done_ = 0;
  open_ = true;
  shown_ = false;
  phase_start_ = Clock::now();
  const auto now = phase_start_;
  if (now - created_ >= delay_) report(now);
}

void Progress::advance(std::size_t steps) {
  const std::lock_guard lock(mutex_);
  if (!open_) return;
  done_ += steps;
  const auto now = Clock::now();
  if (now - created_ >= delay_ && (!shown_ || now - last_report_ >= interval_)) report(now);
}

void Progress::finish() {
  const std::lock_guard lock(mutex_);
  finish_locked();
}

void Progress::finish_locked() {
  if (!open_) return;
  const auto now = Clock::now();
  if (shown_ || now - created_ >= delay_) {
    if (total_) done_ = total_;
    report(now);
  }
  if (line_pending_) out_ << "\n" << std::flush;
  line_pending_ = false;
  open_ = false;
}

// "verify: <phase>: done/total (pct%), rate/s, ETA s" (or the elapsed time when no count).
void Progress::report(Clock::time_point now) {
  const double elapsed = seconds(now - phase_start_);
  std::string line = "verify: " + name_;
  if (total_) {
    line += ": " + std::to_string(done_) + "/" + std::to_string(total_) + " (" +
            std::to_string(done_ * 100 / total_) + "%)";
    if (elapsed > 0 && done_ > 0) {
      const double rate = static_cast<double>(done_) / elapsed;
      line += ", " + fixed1(rate) + "/s";
      if (done_ < total_) line += ", ETA " + fixed1(static_cast<double>(total_ - done_) / rate) + " s";
    }
  }
  line += ", " + fixed1(elapsed) + " s elapsed";
  if (terminal_)
    out_ << "\r\033[K" << line << std::flush;
  else
    out_ << line << "\n" << std::flush;
  line_pending_ = terminal_;
  shown_ = true;
  last_report_ = now;
}

}  // namespace seqi
