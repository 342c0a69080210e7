#pragma once
/// Hidden temporary output files (output_file.hpp) removed when SIGTERM or SIGINT kills the
/// process: a cancelled Slurm job or a Ctrl-C would otherwise leave `.NAME.tmp-*` files behind.
/// The handler may only call async-signal-safe functions, so open temporaries live in a fixed-size
/// table of plain character arrays (no allocation, no lock) that the handler walks with unlink().
#include <csignal>
#include <filesystem>

namespace hetsim {

/// Records `path` as an open temporary; returns its slot, or -1 when the table is full or the path
/// too long (that file is then still removed on every normal exit, just not on a signal).
int register_temporary(const std::filesystem::path& path);
/// Forgets slot `slot` (a value of register_temporary; -1 is ignored). Call once the file is
/// renamed or removed.
void unregister_temporary(int slot);

/// Installs the handler for SIGTERM and SIGINT: it unlinks every registered temporary, then
/// re-raises the signal with its default action, so the process still ends "killed by signal"
/// (exit status 128 + signal number in a shell). Once per process, before output files open.
void remove_temporaries_on_signals();

/// While one lives, SIGTERM and SIGINT wait (blocked for the calling thread); when it ends they
/// are delivered. A run renames its output files one after another (jobs.csv, summary.json, the
/// timeline's three): a kill between two renames would leave new files beside an earlier run's.
/// Deferred over the renames, the kill lands after the last one: all files new, or all old.
class DeferTerminationSignals {
 public:
  DeferTerminationSignals();
  ~DeferTerminationSignals();
  DeferTerminationSignals(const DeferTerminationSignals&) = delete;
  DeferTerminationSignals& operator=(const DeferTerminationSignals&) = delete;

 private:
  sigset_t previous_{};
};

}  // namespace hetsim
