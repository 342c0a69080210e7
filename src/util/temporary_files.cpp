#include "hetsim/util/temporary_files.hpp"

#include <atomic>
#include <csignal>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

namespace hetsim {
namespace {

// A sweep writes at most a few files per thread at once; 256 slots leave ample room.
constexpr int kSlots = 256;
constexpr std::size_t kPathBytes = 4096;  // PATH_MAX on Linux, terminating zero included

enum SlotState : int { kFree = 0, kFilling = 1, kInUse = 2 };

// Zero-initialised static storage: no constructor runs, so the handler can read it at any time.
// Value-initialised and constinit so the compiler emits no start-up loop: a default-initialised
// `path` made GCC store each slot's state at start-up, touching 256 pages (1 MB) in every run
// (issue 19: a few percent of a Pollux run).
struct Slot {
  std::atomic<int> state{kFree};
  char path[kPathBytes]{};
};
constinit Slot slots[kSlots]{};

static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads slot states");

extern "C" void remove_temporaries_and_reraise(int signal_number) {
  for (Slot& slot : slots)
    if (slot.state.load(std::memory_order_acquire) == kInUse) ::unlink(slot.path);
  // The default action ends the process the way the sender meant (and a shell sees 128 + signal).
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

int register_temporary(const std::filesystem::path& path) {
  const std::string& text = path.native();
  if (text.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!slots[i].state.compare_exchange_strong(expected, kFilling, std::memory_order_acquire)) continue;
    std::memcpy(slots[i].path, text.c_str(), text.size() + 1);
    slots[i].state.store(kInUse, std::memory_order_release);  // the handler sees a whole path or none
    return i;
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot < 0 || slot >= kSlots) return;
  slots[slot].state.store(kFree, std::memory_order_release);
}

void remove_temporaries_on_signals() {
  struct sigaction action {};
  action.sa_handler = remove_temporaries_and_reraise;
  sigemptyset(&action.sa_mask);
  // Both signals blocked while the handler runs, so a second one cannot interrupt the cleanup.
  sigaddset(&action.sa_mask, SIGTERM);
  sigaddset(&action.sa_mask, SIGINT);
  for (int signal_number : {SIGTERM, SIGINT}) {
    // An ignored SIGINT (a job started with `nohup ... &` from a non-interactive shell) stays ignored.
    struct sigaction previous {};
    sigaction(signal_number, nullptr, &previous);
    if (previous.sa_handler == SIG_IGN) continue;
    sigaction(signal_number, &action, nullptr);
  }
}

DeferTerminationSignals::DeferTerminationSignals() {
  sigset_t termination;
  sigemptyset(&termination);
  sigaddset(&termination, SIGTERM);
  sigaddset(&termination, SIGINT);
  pthread_sigmask(SIG_BLOCK, &termination, &previous_);
}

// A signal that came meanwhile is delivered here, before this returns.
DeferTerminationSignals::~DeferTerminationSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

}  // namespace hetsim
