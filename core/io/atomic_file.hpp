// An output file that appears complete or not at all. It is written to a temporary file beside
// the target and renamed into place by commit(); until then the temporary is removed by the
// destructor (an exception, an early return) and by a handler when the process is killed by
// SIGINT, SIGTERM, SIGHUP, SIGQUIT or SIGXFSZ (Ctrl-C, a scheduler's stop, a file size limit).
// Only SIGKILL and a power cut can leave a temporary behind; never a half-written target.
// ScratchFolder (below) is the same for a folder of temporaries.
// A target that is a character device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is
// written straight to, never replaced by a rename; a write that fails there (/dev/full) still
// throws from commit(). A link to a regular file replaces the file it points to.
#pragma once

#include <filesystem>
#include <fstream>

namespace tileskip {

class AtomicFile {
 public:
  // Creates the temporary; throws InputError when the target's folder cannot be written.
  explicit AtomicFile(const std::filesystem::path& target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  const std::filesystem::path& temporaryPath() const { return temporary_; }

  // Flushes, closes and renames the temporary onto the target; throws InputError (and removes
  // the temporary) when the data could not be written or the target cannot be replaced.
  void commit();

 private:
  void discard();
  void openDevice(const std::filesystem::file_status& status);

  std::filesystem::path target_, temporary_;
  std::ofstream out_;
  int slot_ = -1;  // where the signal handler finds the temporary's name
  bool committed_ = false;
  bool direct_ = false;  // the target is a device or FIFO, written straight to
};

// A folder of temporary files (a recording's frames) in the system's temporary folder ($TMPDIR),
// removed with its files by the destructor and, as AtomicFile's temporary, by the handler of the
// same signals. It holds files only: the handler does not descend into folders.
class ScratchFolder {
 public:
  // mkdtemp("<temporaries>/<prefix>-XXXXXX"); UnavailableError when it cannot be made.
  explicit ScratchFolder(const std::string& prefix);
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;    // open for the signal handler, which lists it with system calls alone
  int slot_ = -1;  // where the handler finds it
};

}  // namespace tileskip
