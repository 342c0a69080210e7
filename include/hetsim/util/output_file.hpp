#pragma once
/// Writing output files so that a failure is an error, not a silently truncated file: a full disk
/// (ENOSPC), a quota or an I/O error only shows once the stream's buffer is flushed or the file is
/// closed, which an unchecked std::ofstream ignores.
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>

namespace hetsim {

/// Lets `write` fill a hidden temporary beside `file`, flushes and closes it, checking the stream
/// after each step, then renames it to `file`: the final name always holds a whole file (a full
/// disk or a kill mid-write leaves the old file or none, never a truncated one). Throws InputError(file, 0, field, "cannot write file: <strerror>") when
/// the file cannot be opened or any write, the flush or the close fails (the CLI maps this to exit
/// code 2, like an output folder it cannot create). `field` names the option or setting that chose
/// the path (e.g. "--out"). Exceptions thrown by `write` itself pass through unchanged.
void write_file_checked(const std::filesystem::path& file, const std::string& field,
                        const std::function<void(std::ostream&)>& write);

/// An output file written while a run goes (streamed timelines), with write_file_checked's
/// guarantees: the data goes to a hidden temporary beside `file` (a device such as /dev/stdout is
/// written in place), and commit() flushes, closes, checks and renames it. Without commit (an
/// exception ended the run) the temporary is removed. Errors: InputError(file, 0, field, ...).
class StreamedOutputFile {
 public:
  StreamedOutputFile(std::filesystem::path file, std::string field);
  StreamedOutputFile(const StreamedOutputFile&) = delete;
  StreamedOutputFile& operator=(const StreamedOutputFile&) = delete;
  ~StreamedOutputFile();
  std::ostream& stream() { return out_; }
  /// Flushes and closes the temporary; throws when any write so far, the flush or the close
  /// failed. Files that belong together finish all before any is committed, so a write error in
  /// one leaves none of them renamed into place.
  void finish();
  /// finish(), then renames the temporary to the file; throws when either failed.
  void commit();

 private:
  std::filesystem::path file_;     // the name the user gave (errors name it)
  std::filesystem::path target_;   // what the rename replaces (a symlink's target)
  std::filesystem::path written_;  // the temporary, or the file itself when written in place
  std::string field_;
  class Buffer;  // a file buffer that keeps the errno of its first failed write
  std::unique_ptr<Buffer> buf_;
  std::ostream out_;
  bool in_place_ = false;
  bool committed_ = false;
  bool finished_ = false;
  int temporary_slot_ = -1;  // the temporary's slot in the signal handler's table (temporary_files.hpp)
};

/// A name made safe as one folder under an output directory (sweep point ids, compare's policy
/// folders): anything but letters, digits and . - _ = ( ) , becomes '_', and "", "." or ".." get a
/// leading '_' (a Python policy may call itself "../../x").
std::string safe_folder_name(const std::string& name);

/// Output paths checked before a simulation starts, so a finished run is not lost to a typo:
/// creates the folder and writes (then removes) a probe file in it. InputError(dir, 0, field, ...).
void check_output_folder(const std::filesystem::path& dir, const std::string& field);
/// The same for one output file: its folder exists and takes a file; `file` is not a folder.
void check_output_file(const std::filesystem::path& file, const std::string& field);

/// "<size> <FNV-1a 64 hex>" of a file's bytes, or "absent": what a sweep's DONE marker records of
/// each output so a resume can tell a whole file from one cut short or changed.
std::string file_fingerprint(const std::filesystem::path& file);

/// The same for a text already in memory.
void write_text_checked(const std::filesystem::path& file, const std::string& field, const std::string& text);

}  // namespace hetsim
