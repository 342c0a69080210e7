#include "hetsim/util/output_file.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <fcntl.h>
#include <fstream>
#include <thread>
#include <unistd.h>

#include "hetsim/util/error.hpp"
#include "hetsim/util/temporary_files.hpp"

namespace hetsim {
namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& field, int err) {
  // errno is what the failing open/write/close left behind; 0 when the library failed without a
  // system error (then there is no better reason to give).
  const std::string reason = err != 0 ? std::strerror(err) : "write error";
  throw InputError(file.string(), 0, field, "cannot write file: " + reason);
}

// A sibling of `file` that no other writer uses: same folder (so the rename stays on one file
// system and is atomic), hidden, named by process, thread (sweep points write in parallel) and a
// per-process count, since one thread may hold a streamed file open while it writes another of
// the same name (--timeline OUT/summary.json beside --out OUT).
std::filesystem::path temporary_sibling(const std::filesystem::path& file) {
  static std::atomic<std::uint64_t> next{0};  // only makes names unique; no output depends on it
  const auto thread = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return file.parent_path() /
         fmt::format(".{}.tmp-{}-{:x}-{}", file.filename().string(), ::getpid(), thread, next.fetch_add(1));
}

// An empty file created and closed, to learn now whether a folder takes files. A failure names
// `named`, the path the user gave: the probe's own hidden name means nothing to them.
void write_probe(const std::filesystem::path& probe, const std::filesystem::path& named, const std::string& field) {
  errno = 0;
  std::ofstream out(probe, std::ios::binary | std::ios::trunc);
  if (!out) fail(named, field, errno);
  errno = 0;
  out.close();
  if (out.fail()) fail(named, field, errno);
}

}  // namespace

// A streamed file fails long before commit() looks (a full disk mid-run), and errno has been
// overwritten by then: the buffer keeps the errno of the first write that failed.
class StreamedOutputFile::Buffer : public std::filebuf {
 public:
  int first_errno = 0;

 protected:
  int_type overflow(int_type c) override {
    errno = 0;
    const int_type r = std::filebuf::overflow(c);
    if (traits_type::eq_int_type(r, traits_type::eof())) keep_errno();
    return r;
  }
  std::streamsize xsputn(const char_type* s, std::streamsize n) override {
    errno = 0;
    const std::streamsize r = std::filebuf::xsputn(s, n);
    if (r < n) keep_errno();
    return r;
  }
  int sync() override {
    errno = 0;
    const int r = std::filebuf::sync();
    if (r != 0) keep_errno();
    return r;
  }

 private:
  void keep_errno() {
    if (first_errno == 0) first_errno = errno;
  }
};

StreamedOutputFile::StreamedOutputFile(std::filesystem::path file, std::string field)
    : file_(std::move(file)), field_(std::move(field)), buf_(std::make_unique<Buffer>()), out_(buf_.get()) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(file_, ec);  // follows symlinks
  // A device, a FIFO or /dev/stdout cannot be replaced by a rename (and must not be): written in place.
  in_place_ = fs::exists(st) && !fs::is_regular_file(st);
  // A symlink stays a symlink: the file it points to is the one replaced.
  target_ = fs::is_symlink(fs::symlink_status(file_, ec)) ? fs::weakly_canonical(file_, ec) : file_;
  // Written under a temporary name, then renamed: the final name holds a whole file or nothing new
  // (a full disk, a kill or an exception mid-write leaves at most the hidden temporary, which is
  // removed when we still can).
  written_ = in_place_ ? file_ : temporary_sibling(target_);
  if (!in_place_) temporary_slot_ = register_temporary(written_);  // before it exists: a kill never misses it
  // Opening a FIFO for writing waits for a reader, for ever if none comes: ask without waiting
  // first, and hold that end open until the stream has its own (a reader sees no early EOF).
  int fifo_probe = -1;
  if (in_place_ && fs::is_fifo(st)) {
    fifo_probe = ::open(file_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fifo_probe < 0 && errno == ENXIO)
      throw InputError(file_.string(), 0, field_, "cannot write file: no process reads this FIFO");
    if (fifo_probe < 0) fail(file_, field_, errno);
  }
  errno = 0;
  const bool opened = buf_->open(written_, std::ios::binary | std::ios::out | std::ios::trunc) != nullptr;
  const int open_errno = errno;
  if (fifo_probe >= 0) ::close(fifo_probe);
  if (!opened) fail(file_, field_, open_errno);
}

StreamedOutputFile::~StreamedOutputFile() {
  if (committed_ || in_place_) return;
  std::error_code ignored;
  buf_->close();
  std::filesystem::remove(written_, ignored);
  unregister_temporary(temporary_slot_);
}

void StreamedOutputFile::finish() {
  if (finished_) return;
  out_.flush();
  if (!out_) fail(file_, field_, buf_->first_errno);
  errno = 0;
  if (!buf_->close()) fail(file_, field_, buf_->first_errno ? buf_->first_errno : errno);
  finished_ = true;
}

void StreamedOutputFile::commit() {
  finish();
  if (!in_place_) {
    std::error_code ec;
    std::filesystem::rename(written_, target_, ec);
    if (ec) fail(file_, field_, ec.value());  // the destructor removes the temporary
    unregister_temporary(temporary_slot_);      // after the rename: a kill before it still removes the file
  }
  committed_ = true;
}

void write_file_checked(const std::filesystem::path& file, const std::string& field,
                        const std::function<void(std::ostream&)>& write) {
  StreamedOutputFile out(file, field);
  write(out.stream());
  out.commit();
}

void check_output_folder(const std::filesystem::path& dir, const std::string& field) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir.string(), 0, field, "cannot create directory: " + ec.message());
  if (!std::filesystem::is_directory(dir, ec)) throw InputError(dir.string(), 0, field, "is not a directory");
  // A probe file, so that a read-only folder fails now and not after the simulation.
  write_probe(dir / ".hetsim-write-probe", dir, field);
  std::filesystem::remove(dir / ".hetsim-write-probe", ec);
}

void check_output_file(const std::filesystem::path& file, const std::string& field) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(file, ec);
  if (std::filesystem::is_directory(st)) throw InputError(file.string(), 0, field, "is a directory, not a file");
  // A device or FIFO (/dev/stdout) is written in place later: no probe beside it (that would be /dev).
  if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) return;
  const std::filesystem::path parent = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  if (!std::filesystem::is_directory(parent, ec))
    throw InputError(file.string(), 0, field, "its folder " + parent.string() + " does not exist");
  const std::filesystem::path probe = temporary_sibling(file);
  const int slot = register_temporary(probe);
  try {
    write_probe(probe, file, field);
  } catch (...) {
    std::filesystem::remove(probe, ec);  // a close that failed leaves the file
    unregister_temporary(slot);
    throw;
  }
  std::filesystem::remove(probe, ec);
  unregister_temporary(slot);
}

std::string file_fingerprint(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "absent";
  // FNV-1a (64 bit): detects a cut or changed file, not an adversary.
  std::uint64_t hash = 0xcbf29ce484222325ULL, size = 0;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    const auto n = static_cast<std::size_t>(in.gcount());
    for (std::size_t i = 0; i < n; ++i) hash = (hash ^ static_cast<unsigned char>(buf[i])) * 0x100000001b3ULL;
    size += n;
  }
  return fmt::format("{} {:016x}", size, hash);
}

void write_text_checked(const std::filesystem::path& file, const std::string& field, const std::string& text) {
  write_file_checked(file, field, [&](std::ostream& out) { out << text; });
}

std::string safe_folder_name(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '-' || c == '_' || c == '=' || c == '(' || c == ')' || c == ',';
    out += ok ? c : '_';
  }
  return out.empty() || out == "." || out == ".." ? "_" + out : out;
}

}  // namespace hetsim
