#pragma once
// The CLI's one logger: warnings and notes on stderr, filtered by --log-level. Owned by a
// command's action and passed where needed (no global state). Progress (progress.hpp) follows the
// same levels: shown at warning and info, silenced at error.
#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <fmt/core.h>
#include <string>
#include <utility>

namespace hetsim::app {

enum class LogLevel { Error, Warning, Info };

class Logger {
 public:
  explicit Logger(LogLevel level = LogLevel::Warning, std::FILE* out = stderr) : level_(level), out_(out) {}
  /// "hetsim: warning: ..." unless --log-level error.
  void warning(const std::string& text) const {
    if (level_ >= LogLevel::Warning) fmt::print(out_, "hetsim: warning: {}\n", text);
  }
  /// A note about the inputs ("hetsim: ..."), shown with warnings.
  void note(const std::string& text) const {
    if (level_ >= LogLevel::Warning) fmt::print(out_, "hetsim: {}\n", text);
  }
  bool shows_info() const { return level_ >= LogLevel::Info; }
  /// Detail shown only with --log-level info.
  void info(const std::string& text) const {
    if (level_ >= LogLevel::Info) fmt::print(out_, "hetsim: info: {}\n", text);
  }

 private:
  LogLevel level_;
  std::FILE* out_;
};

/// `--log-level error|warning|info` (default warning); another value is a usage error (exit 2).
inline void add_log_level_option(CLI::App* cmd, LogLevel& level) {
  cmd->add_option("--log-level", level,
                  "What goes to stderr besides errors: error (errors only), warning (default: also warnings, "
                  "input notes and progress), info (also detail)")
      ->transform(
          [](std::string given) {
            // Our own message: CLI11's CheckedTransformer printed its internal map ("{error->0,...} FAILED").
            std::string lower = given;
            for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            for (auto [name, level] : {std::pair{"error", LogLevel::Error}, std::pair{"warning", LogLevel::Warning},
                                       std::pair{"info", LogLevel::Info}})
              if (lower == name) return std::to_string(static_cast<int>(level));
            throw CLI::ValidationError("expected error, warning or info, got '" + given + "'");
          },
          "error|warning|info");
}

/// Hidden `--progress-period S`: seconds before the first progress line and between lines (tests
/// set 0 to see lines from a short run without timing anything).
inline void add_progress_period_option(CLI::App* cmd, double& period_s) {
  cmd->add_option("--progress-period", period_s)->group("")->check(CLI::NonNegativeNumber);
}

}  // namespace hetsim::app
