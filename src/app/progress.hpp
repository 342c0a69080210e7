#pragma once
// A one-line progress bar on stderr, drawn only when stderr is a terminal (quiet in logs and CI).
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <fmt/core.h>
#include <unistd.h>

namespace hetsim::app {

/// Progress of a batch of runs. Not thread-safe: callers serialise update().
class ProgressBar {
 public:
  ProgressBar() : enabled_(isatty(fileno(stderr)) != 0), start_(std::chrono::steady_clock::now()) {}
  /// Redraws the bar: `done` of `total` runs finished, `failed` of them failed.
  void update(std::size_t done, std::size_t total, std::size_t failed) {
    if (!enabled_ || total == 0) return;
    constexpr std::size_t width = 30;
    const std::size_t filled = done * width / total;
    const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    fmt::print(stderr, "\r[{}{}] {}/{} runs{} {:.1f} s", std::string(filled, '#'), std::string(width - filled, '.'), done,
               total, failed ? fmt::format(", {} failed", failed) : std::string(), elapsed_s);
    if (done == total) fmt::print(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace hetsim::app
