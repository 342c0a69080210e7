"""Writing one output file the way hetsim's C++ writer does (src/util/output_file.cpp), so that
plot.py's figures and report.py's page follow the same rules as every other hetsim output:

- a regular file (or a new name) is written under a hidden temporary beside it and renamed over
  it: the name holds the old file or the whole new one, never a cut one;
- a symlink stays a symlink: the file it points to is the one replaced;
- a FIFO or a device (/dev/stdout, /dev/null) is written in place, never replaced by a file; a
  FIFO that no process reads is an error, not a hang;
- a folder, or anything that cannot be opened, is an OutputFileError naming the path.
"""
import errno
import fcntl
import itertools
import os
import stat

_COUNT = itertools.count()   # temporary names unique within this process (the pid makes them unique across)


class OutputFileError(Exception):
    """A target that cannot be written; the scripts print `PROG: PATH: problem` and exit 2."""

    def __init__(self, path, message):
        super().__init__(f"{path}: {message}")
        self.path, self.message = path, message


def _reason(e):
    return e.strerror or str(e)


def _write_in_place(path, data):
    # O_NONBLOCK: opening a FIFO without a reader fails at once (ENXIO) instead of waiting forever.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise OutputFileError(path, "cannot write file: no process reads this FIFO") from None
        raise OutputFileError(path, f"cannot write file: {_reason(e)}") from None
    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)   # a slow reader is waited for, as by the C++
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as e:
        raise OutputFileError(path, f"cannot write file: {_reason(e)}") from None
    finally:
        os.close(fd)


def _write_replacing(path, target, data):
    tmp = os.path.join(os.path.dirname(target) or ".",
                       f".{os.path.basename(target)}.tmp-{os.getpid()}-{next(_COUNT)}")
    try:
        with open(tmp, "xb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException as e:   # an OSError, or Ctrl-C mid-write: no temporary is left behind
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise OutputFileError(path, f"cannot write file: {_reason(e)}") from None
        raise


def write_output(path, data):
    """Writes bytes (or text, as UTF-8) to path by the rules above; raises OutputFileError."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    path = os.fspath(path)
    try:
        st = os.stat(path)           # follows a symlink: what it points to decides
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise OutputFileError(path, f"cannot write file: {_reason(e)}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputFileError(path, "is a directory, not a file")
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_in_place(path, data)
        return
    target = os.path.realpath(path) if os.path.islink(path) else path
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise OutputFileError(path, f"cannot write file: its folder {folder} does not exist")
    _write_replacing(path, target, data)
