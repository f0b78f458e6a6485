#include "core/io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <csignal>
#include <cstring>
#include <random>
#include <system_error>

#include "core/model/error.hpp"

namespace tileskip {

namespace {

// Temporaries the signal handler must remove. A handler may only call async-signal-safe
// functions, so the names live in fixed buffers, claimed and published through atomics.
constexpr int kSlots = 8;
constexpr std::size_t kMaxPath = 4096;
enum SlotState : int { kFree, kClaimed, kLive };
std::array<std::atomic<int>, kSlots> slotStates{};
std::array<std::array<char, kMaxPath>, kSlots> slotPaths{};
std::array<int, kSlots> slotFolders{};  // a ScratchFolder's open descriptor, -1 for a file

// Empties the folder open as `fd` of its files, with system calls alone (readdir may allocate:
// not allowed in a signal handler). A scratch folder holds only files.
void removeFilesOf(int fd) {
  alignas(8) static char entries[4096];
  struct Entry {  // the kernel's linux_dirent64
    std::uint64_t inode;
    std::int64_t offset;
    unsigned short length;
    unsigned char type;
    char name[1];
  };
  for (;;) {
    ::lseek(fd, 0, SEEK_SET);
    const long bytes = ::syscall(SYS_getdents64, fd, entries, sizeof entries);
    if (bytes <= 0) return;
    bool removed = false;
    for (long at = 0; at < bytes;) {
      const auto* entry = reinterpret_cast<const Entry*>(entries + at);
      const char* name = entries + at + offsetof(Entry, name);
      const bool dots = name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
      if (!dots && ::unlinkat(fd, name, 0) == 0) removed = true;
      at += entry->length;
    }
    if (!removed) return;  // what is left cannot be removed: stop rather than loop
  }
}

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ};

extern "C" void removeTemporariesAndDie(int signal) {
  for (int i = 0; i < kSlots; ++i) {
    if (slotStates[i].load() != kLive) continue;
    if (slotFolders[i] >= 0) {
      removeFilesOf(slotFolders[i]);
      ::rmdir(slotPaths[i].data());
    } else {
      ::unlink(slotPaths[i].data());
    }
  }
  // SA_RESETHAND restored the default action: die of the same signal, as without us.
  ::raise(signal);
}

void installHandlersOnce() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  for (int signal : kCleanupSignals) {
    struct sigaction previous {};
    if (::sigaction(signal, nullptr, &previous) != 0 || previous.sa_handler != SIG_DFL) {
      continue;  // the program chose its own handling (or to ignore it): leave that alone
    }
    struct sigaction action {};
    action.sa_handler = removeTemporariesAndDie;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    ::sigaction(signal, &action, nullptr);
  }
}

int claimSlot(const std::filesystem::path& path, int folder = -1) {
  const std::string& name = path.native();
  if (name.size() >= kMaxPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (slotStates[i].compare_exchange_strong(expected, kClaimed)) {
      std::memcpy(slotPaths[i].data(), name.c_str(), name.size() + 1);
      slotFolders[i] = folder;
      slotStates[i].store(kLive);
      return i;
    }
  }
  return -1;  // more than kSlots files at once: still atomic, only not cleaned up on a signal
}

void releaseSlot(int slot) {
  if (slot >= 0) slotStates[slot].store(kFree);
}

}  // namespace

namespace {

// Longest file name most file systems take (NAME_MAX).
constexpr std::size_t kMaxNameBytes = 255;

// ".<target name>.tmp<random>", the target's name shortened so that the whole stays within
// NAME_MAX: a legal 254-byte target name must not make an illegal temporary name.
std::string temporaryName(const std::string& targetName, unsigned random) {
  std::string suffix = ".tmp" + std::to_string(random);
  std::size_t room = kMaxNameBytes - 1 - suffix.size();
  return "." + targetName.substr(0, std::min(targetName.size(), room)) + suffix;
}

}  // namespace

AtomicFile::AtomicFile(const std::filesystem::path& target) : target_(target) {
  installHandlersOnce();
  std::error_code ec;
  std::filesystem::file_status status = std::filesystem::status(target, ec);  // follows links
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    openDevice(status);
    return;
  }
  // A link to a regular file (or to where one will be): replace that file, keep the link.
  std::filesystem::path resolved = target;
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(target, ec))) {
    std::filesystem::path real = std::filesystem::weakly_canonical(target, ec);
    if (!ec) resolved = real;
  }
  target_ = resolved;
  std::random_device entropy;
  std::filesystem::path folder = resolved.parent_path().empty() ? "." : resolved.parent_path();
  // O_EXCL: never adopt (and later delete) a file someone else made; retry on a name clash.
  for (int attempt = 0; attempt < 16 && temporary_.empty(); ++attempt) {
    // Hidden, and named after the target, so a stray one (after SIGKILL) says what it was.
    std::filesystem::path candidate = folder / temporaryName(resolved.filename().string(), entropy());
    int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      temporary_ = candidate;
    } else if (errno != EEXIST) {
      break;
    }
  }
  if (temporary_.empty()) {
    throw InputError(target.string() + ": cannot write here (does the folder exist, and may we write to it?)");
  }
  slot_ = claimSlot(temporary_);
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    discard();
    throw InputError(target.string() + ": cannot write here (does the folder exist, and may we write to it?)");
  }
}

// A character device (/dev/null, /dev/stdout on a terminal), a FIFO or a socket is written
// straight to: renaming a file over it would replace the device node. Such an output cannot be
// atomic; a failed write still throws. A FIFO nobody reads is refused instead of blocking.
void AtomicFile::openDevice(const std::filesystem::file_status& status) {
  direct_ = true;
  bool fifo = std::filesystem::is_fifo(status);
  if (std::filesystem::is_directory(status)) throw InputError(target_.string() + ": cannot replace the file: it is a folder");
  int fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
  if (fd < 0) {
    int error = errno;
    if (fifo && error == ENXIO) throw InputError(target_.string() + ": is a FIFO that nobody is reading; start the reader first");
    throw InputError(target_.string() + ": cannot write to this " + (fifo ? "FIFO" : "device") + ": " + std::strerror(error));
  }
  // The FIFO has a reader now (our descriptor keeps it connected): this open does not block.
  out_.open(target_, std::ios::binary);
  ::close(fd);
  if (!out_) throw InputError(target_.string() + ": cannot write to this " + std::string(fifo ? "FIFO" : "device"));
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::discard() {
  out_.close();
  if (direct_) return;  // a device: nothing of ours to remove
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
  releaseSlot(slot_);
  slot_ = -1;
}

void AtomicFile::commit() {
  out_.flush();
  bool written = static_cast<bool>(out_);
  out_.close();
  if (!written || out_.fail()) {
    discard();
    throw InputError(target_.string() + ": writing failed (disk full?)");
  }
  if (direct_) {
    committed_ = true;
    return;
  }
  std::error_code ec;
  std::filesystem::rename(temporary_, target_, ec);
  if (ec) {
    discard();
    throw InputError(target_.string() + ": cannot replace the file: " + ec.message());
  }
  // Only now: a signal before the rename must still find and remove the temporary.
  releaseSlot(slot_);
  slot_ = -1;
  committed_ = true;
}

ScratchFolder::ScratchFolder(const std::string& prefix) {
  installHandlersOnce();
  const std::filesystem::path temporaries = std::filesystem::temp_directory_path();
  std::string pattern = (temporaries / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw UnavailableError("cannot make a scratch folder in " + temporaries.string() + ": " + std::strerror(errno));
  }
  path_ = pattern;
  fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  slot_ = fd_ >= 0 ? claimSlot(path_, fd_) : -1;
}

ScratchFolder::~ScratchFolder() {
  releaseSlot(slot_);
  if (fd_ >= 0) ::close(fd_);
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace tileskip
