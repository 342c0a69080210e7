#pragma once
// Progress on stderr for long work (run, compare, sweep, check): redrawn in place on a terminal, a
// plain line every few seconds otherwise (Slurm logs, CI, notebooks). Never touches stdout or an
// output file, so outputs stay byte-identical with and without it.
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <fmt/core.h>
#include <functional>
#include <string>
#include <unistd.h>

#include "hetsim/metrics/job_event.hpp"
#include "log.hpp"

namespace hetsim::app {

/// When and where progress is drawn. Injectable (tests set period 0 and a fake stream).
struct ProgressSettings {
  bool enabled = true;      ///< false under -q and --log-level error
  bool terminal = false;    ///< redraw one line in place instead of printing lines
  double threshold_s = 1.0; ///< a run says nothing until it has taken this much wall time
  double period_s = 5.0;    ///< seconds between plain lines (a terminal redraws every 0.2 s)
  std::FILE* out = stderr;
  std::function<double()> clock;  ///< wall seconds; default: steady clock since construction

  /// Defaults for the real stderr; `period_s` < 0 keeps the defaults (the hidden --progress-period).
  /// Progress is chatter at the default level: -q and --log-level error both silence it.
  static ProgressSettings for_stderr(bool quiet, LogLevel level, double period_s = -1) {
    ProgressSettings s;
    s.enabled = !quiet && level >= LogLevel::Warning;
    s.terminal = isatty(fileno(stderr)) != 0;
    if (period_s >= 0) s.threshold_s = s.period_s = period_s;
    return s;
  }
};

/// Draws lines: in place on a terminal, one per call otherwise, at most one per period.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(ProgressSettings s) : s_(std::move(s)) {
    if (!s_.clock) {
      const auto t0 = std::chrono::steady_clock::now();
      s_.clock = [t0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    }
  }
  const ProgressSettings& settings() const { return s_; }
  double elapsed_s() const { return s_.clock(); }
  bool drawn() const { return drawn_; }
  /// True when a line is due now (past the threshold, a period since the last line).
  bool due() {
    if (!s_.enabled) return false;
    const double now = s_.clock();
    const double period = s_.terminal ? std::min(0.2, s_.period_s) : s_.period_s;
    if (now < s_.threshold_s || (drawn_ && now - last_ < period)) return false;
    last_ = now;
    return true;
  }
  void draw(const std::string& text) {
    if (s_.terminal) fmt::print(s_.out, "\r{}\x1b[K", text);
    else fmt::print(s_.out, "{}\n", text);
    drawn_ = true;
    std::fflush(s_.out);
  }
  /// A line of its own (a finished run's wall time), keeping an in-place line intact below it.
  void note(const std::string& text) {
    if (!s_.enabled) return;
    fmt::print(s_.out, "{}{}\n", s_.terminal && drawn_ ? "\r\x1b[K" : "", text);
    std::fflush(s_.out);
  }
  /// Ends an in-place line so later stderr output starts on a fresh line.
  void finish() {
    if (s_.terminal && drawn_) fmt::print(s_.out, "\n");
    drawn_ = false;
  }

 private:
  ProgressSettings s_;
  bool drawn_ = false;
  double last_ = 0;
};

/// Progress of a batch of runs (compare, sweep, check). Callers serialise update().
class ProgressBar {
 public:
  explicit ProgressBar(ProgressSettings s) : printer_(std::move(s)) {}
  ProgressPrinter& printer() { return printer_; }
  /// `done` of `total` runs finished, `failed` of them failed; `last_wall_s` the last run's wall time.
  void update(std::size_t done, std::size_t total, std::size_t failed, double last_wall_s = -1) {
    if (total == 0) return;
    if (done < total && !printer_.due()) return;
    if (done == total && !printer_.settings().enabled) return;
    constexpr std::size_t width = 30;
    const std::size_t filled = done * width / total;
    const std::string fails = failed ? fmt::format(", {} failed", failed) : std::string();
    const std::string last = last_wall_s >= 0 ? fmt::format(", last run {:.1f} s", last_wall_s) : std::string();
    if (printer_.settings().terminal)
      printer_.draw(fmt::format("[{}{}] {}/{} runs{}{}, {:.1f} s", std::string(filled, '#'),
                                std::string(width - filled, '.'), done, total, fails, last, printer_.elapsed_s()));
    else
      printer_.draw(fmt::format("progress: {}/{} runs done{}{}, wall {:.1f} s", done, total, fails, last,
                                printer_.elapsed_s()));
    if (done == total) printer_.finish();
  }

 private:
  ProgressPrinter printer_;
};

/// Progress of one run, fed by the run's job events. The clock is read once every `kCheckEvery`
/// events, so the cost per event is a counter and a branch.
class RunProgressSink : public JobEventSink {
 public:
  explicit RunProgressSink(ProgressSettings s)
      : printer_(std::move(s)), check_every_(printer_.settings().period_s == 0 ? 1 : kCheckEvery) {}
  void on_event(const JobEvent& e) override {
    if (e.kind == JobEventKind::Rejected) return;  // its time may lie past the run's end (the 1e12 s horizon)
    if (e.kind == JobEventKind::Arrived) ++arrived_;
    else if (e.kind == JobEventKind::Completed) ++done_;
    if (++since_check_ < check_every_) return;
    since_check_ = 0;
    if (printer_.due()) draw(e.time);
  }
  bool enabled() const { return printer_.settings().enabled; }
  void on_run_end(SimTime end) override {
    if (printer_.settings().terminal && printer_.drawn()) draw(end);  // the final state, in place
    printer_.finish();
  }

 private:
  static constexpr std::size_t kCheckEvery = 1024;
  void draw(SimTime t) {
    printer_.draw(fmt::format("progress: simulated {:.0f} s ({:.1f} h), {} jobs done of {} arrived, wall {:.1f} s",
                              t.seconds(), t.seconds() / 3600.0, done_, arrived_, printer_.elapsed_s()));
  }
  ProgressPrinter printer_;
  std::size_t check_every_;
  std::size_t since_check_ = 0, arrived_ = 0, done_ = 0;
};

}  // namespace hetsim::app
