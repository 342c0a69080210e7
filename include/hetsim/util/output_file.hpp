#pragma once
/// Writing output files so that a failure is an error, not a silently truncated file: a full disk
/// (ENOSPC), a quota or an I/O error only shows once the stream's buffer is flushed or the file is
/// closed, which an unchecked std::ofstream ignores.
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace hetsim {

/// Creates (or truncates) `file`, lets `write` fill it, then flushes and closes it, checking the
/// stream after each step. Throws InputError(file, 0, field, "cannot write file: <strerror>") when
/// the file cannot be opened or any write, the flush or the close fails (the CLI maps this to exit
/// code 2, like an output folder it cannot create). `field` names the option or setting that chose
/// the path (e.g. "--out"). Exceptions thrown by `write` itself pass through unchanged.
void write_file_checked(const std::filesystem::path& file, const std::string& field,
                        const std::function<void(std::ostream&)>& write);

/// A name made safe as one folder under an output directory (sweep point ids, compare's policy
/// folders): anything but letters, digits and . - _ = ( ) , becomes '_', and "", "." or ".." get a
/// leading '_' (a Python policy may call itself "../../x").
std::string safe_folder_name(const std::string& name);

/// The same for a text already in memory.
void write_text_checked(const std::filesystem::path& file, const std::string& field, const std::string& text);

}  // namespace hetsim
