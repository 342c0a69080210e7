#include "hetsim/util/output_file.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <thread>
#include <unistd.h>

#include "hetsim/util/error.hpp"

namespace hetsim {
namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& field, int err) {
  // errno is what the failing open/write/close left behind; 0 when the library failed without a
  // system error (then there is no better reason to give).
  const std::string reason = err != 0 ? std::strerror(err) : "write error";
  throw InputError(file.string(), 0, field, "cannot write file: " + reason);
}

// A sibling of `file` that no other writer uses: same folder (so the rename stays on one file
// system and is atomic), hidden, named by process and thread (sweep points write in parallel).
std::filesystem::path temporary_sibling(const std::filesystem::path& file) {
  const auto thread = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return file.parent_path() / fmt::format(".{}.tmp-{}-{:x}", file.filename().string(), ::getpid(), thread);
}

// Writes `file` in place (the stream checks of write_file_checked, no rename); errors name `shown`
// (the final name, when `file` is its temporary).
void write_in_place(const std::filesystem::path& file, const std::string& field,
                    const std::function<void(std::ostream&)>& write, const std::filesystem::path* shown = nullptr) {
  const std::filesystem::path& name = shown ? *shown : file;
  errno = 0;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) fail(name, field, errno);
  write(out);
  // Take errno as soon as the stream goes bad: later calls may overwrite it.
  if (!out) fail(name, field, errno);
  errno = 0;
  out.flush();
  if (!out) fail(name, field, errno);
  errno = 0;
  out.close();
  if (out.fail()) fail(name, field, errno);
}

}  // namespace

void write_file_checked(const std::filesystem::path& file, const std::string& field,
                        const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);  // follows symlinks
  // A device, a FIFO or /dev/stdout cannot be replaced by a rename (and must not be): written in place.
  if (fs::exists(st) && !fs::is_regular_file(st)) return write_in_place(file, field, write);
  // A symlink stays a symlink: the file it points to is the one replaced.
  const fs::path target = fs::is_symlink(fs::symlink_status(file, ec)) ? fs::weakly_canonical(file, ec) : file;
  // Written under a temporary name, then renamed: the final name holds a whole file or nothing
  // new (a full disk, a kill or an exception mid-write leaves at most the hidden temporary, which
  // is removed when we still can).
  const fs::path tmp = temporary_sibling(target);
  struct Cleanup {
    const fs::path& path;
    bool armed = true;
    ~Cleanup() {
      std::error_code ignored;
      if (armed) fs::remove(path, ignored);
    }
  } cleanup{tmp};
  write_in_place(tmp, field, write, &file);
  fs::rename(tmp, target, ec);
  if (ec) fail(file, field, ec.value());
  cleanup.armed = false;
}

void check_output_folder(const std::filesystem::path& dir, const std::string& field) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir.string(), 0, field, "cannot create directory: " + ec.message());
  if (!std::filesystem::is_directory(dir, ec)) throw InputError(dir.string(), 0, field, "is not a directory");
  // A probe file, so that a read-only folder fails now and not after the simulation.
  write_in_place(dir / ".hetsim-write-probe", field, [](std::ostream&) {});
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
  write_in_place(probe, field, [](std::ostream&) {});
  std::filesystem::remove(probe, ec);
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
