#include "cuda_emulation.hpp"
#include "core/process/sanitizers.hpp"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(TILESKIP_ADDRESS_SANITIZER)
#include <sanitizer/common_interface_defs.h>
#define TILESKIP_EMU_ASAN 1
#endif

// The linker defines these around every __shared__ array (the section named in the header).
extern "C" char __start_tileskip_emu_shared[] __attribute__((weak));
extern "C" char __stop_tileskip_emu_shared[] __attribute__((weak));

namespace tileskip::emu {

namespace {

struct SharedArray {
  char* address;
  std::size_t bytes;
};

// GCC ignores the section attribute on a static local of a template function (such a variable
// lives in a COMDAT group of its own), so every templated kernel's __shared__ arrays land in .bss,
// outside the section the launch fills with NaN. The executable's symbol table still names them:
// the static locals of functions in tileskip::cuda (mangled _ZZN8tileskip4cuda...), which device
// code allows only as __shared__ arrays. Read once, from /proc/self/exe; a stripped test binary
// is an error rather than shared memory that silently starts as what the last block left.
std::vector<SharedArray> findTemplateSharedArrays() {
  static constexpr char kPrefix[] = "_ZZN8tileskip4cuda";
  const int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::logic_error("the emulator cannot open /proc/self/exe to find the kernels' shared arrays");
  auto readAt = [&](void* to, std::size_t bytes, std::uint64_t offset) {
    if (::pread(fd, to, bytes, static_cast<off_t>(offset)) != static_cast<ssize_t>(bytes)) {
      ::close(fd);
      throw std::logic_error("the emulator could not read the test binary's ELF headers");
    }
  };
  Elf64_Ehdr header{};
  readAt(&header, sizeof header, 0);
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  readAt(sections.data(), sections.size() * sizeof(Elf64_Shdr), header.e_shoff);
  std::vector<SharedArray> arrays;
  bool haveSymbols = false;
  std::uintptr_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        *static_cast<std::uintptr_t*>(out) = info->dlpi_addr;  // the first object is the executable
        return 1;
      },
      &bias);
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_type != SHT_SYMTAB || section.sh_link >= sections.size()) continue;
    haveSymbols = true;
    std::vector<Elf64_Sym> symbols(section.sh_size / sizeof(Elf64_Sym));
    readAt(symbols.data(), symbols.size() * sizeof(Elf64_Sym), section.sh_offset);
    const Elf64_Shdr& names = sections[section.sh_link];
    std::vector<char> text(names.sh_size + 1, '\0');
    readAt(text.data(), names.sh_size, names.sh_offset);
    for (const Elf64_Sym& symbol : symbols) {
      if (ELF64_ST_TYPE(symbol.st_info) != STT_OBJECT || symbol.st_size == 0 || symbol.st_name >= names.sh_size) continue;
      if (std::strncmp(text.data() + symbol.st_name, kPrefix, sizeof kPrefix - 1) != 0) continue;
      arrays.push_back({reinterpret_cast<char*>(bias + symbol.st_value), symbol.st_size});
    }
  }
  ::close(fd);
  if (!haveSymbols) {
    throw std::logic_error("the test binary has no symbol table (stripped?): the emulator needs it to fill the "
                           "templated kernels' shared memory with NaN before each block");
  }
  return arrays;
}

// Every byte of shared memory NaN (0xFF...): the non-template kernels' section and the templated
// kernels' arrays.
void poisonSharedMemory() {
  static const std::vector<SharedArray> templateArrays = findTemplateSharedArrays();
  if (__start_tileskip_emu_shared != nullptr) {
    std::memset(__start_tileskip_emu_shared, 0xFF,
                static_cast<std::size_t>(__stop_tileskip_emu_shared - __start_tileskip_emu_shared));
  }
  for (const SharedArray& array : templateArrays) std::memset(array.address, 0xFF, array.bytes);
}

constexpr std::size_t kStackBytes = 256 * 1024;

enum class State { Ready, AtBarrier, AtCollective, Sleeping, Done };
enum class Collective { Ballot, ShuffleXor, Shuffle, Exchange };

struct Fiber {
  ucontext_t context{};
  std::unique_ptr<char[]> stack;
  State state = State::Ready;
  const char* file = nullptr;  // where it waits
  int line = 0;
  Collective collective = Collective::Ballot;
  unsigned mask = 0, value = 0, result = 0;
  int laneMask = 0;
  WarpResolver resolver = nullptr;  // Exchange: its instruction, its operands and results
  const void* input = nullptr;
  void* output = nullptr;
  unsigned long long phasesSeen = 0;  // Sleeping: the count of completed mbarrier phases it saw
};

struct BlockRun {
  std::vector<Fiber> fibers;
  ucontext_t scheduler{};
  unsigned current = 0;
  const std::function<void()>* kernel = nullptr;
  const std::function<void(unsigned)>* afterRun = nullptr;
  // What a thread threw (an emulated instruction's check, say): the scheduler rethrows it, since
  // an exception cannot leave a fiber's own stack.
  std::exception_ptr error;
#ifdef TILESKIP_EMU_ASAN
  const void* mainStack = nullptr;
  std::size_t mainStackSize = 0;
#endif
};

BlockRun* run = nullptr;
unsigned long long completedPhases = 0;  // mbarrier phases completed so far, in any block

void switchToScheduler() {
  Fiber& self = run->fibers[run->current];
#ifdef TILESKIP_EMU_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, run->mainStack, run->mainStackSize);
#endif
  swapcontext(&self.context, &run->scheduler);
#ifdef TILESKIP_EMU_ASAN
  __sanitizer_finish_switch_fiber(fake, &run->mainStack, &run->mainStackSize);
#endif
}

void fiberMain() {
#ifdef TILESKIP_EMU_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &run->mainStack, &run->mainStackSize);
#endif
  try {
    (*run->kernel)();
  } catch (...) {
    run->error = std::current_exception();
  }
  run->fibers[run->current].state = State::Done;
#ifdef TILESKIP_EMU_ASAN
  __sanitizer_start_switch_fiber(nullptr, run->mainStack, run->mainStackSize);
#endif
  setcontext(&run->scheduler);
}

void resume(unsigned index) {
  run->current = index;
  threadIdx = uint3{index, 0, 0};
#ifdef TILESKIP_EMU_ASAN
  void* fake = nullptr;
  Fiber& f = run->fibers[index];
  __sanitizer_start_switch_fiber(&fake, f.stack.get(), kStackBytes);
#endif
  swapcontext(&run->scheduler, &run->fibers[index].context);
#ifdef TILESKIP_EMU_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

std::string where(unsigned thread, const char* file, int line) {
  return "block " + std::to_string(blockIdx.x) + ", thread " + std::to_string(thread) + " at " +
         (file ? file : "?") + ":" + std::to_string(line);
}

unsigned collective(Collective kind, unsigned mask, unsigned value, int laneMask, const char* file, int line) {
  Fiber& self = run->fibers[run->current];
  self.state = State::AtCollective;
  self.collective = kind;
  self.mask = mask;
  self.value = value;
  self.laneMask = laneMask;
  self.file = file;
  self.line = line;
  switchToScheduler();
  return run->fibers[run->current].result;
}

// Completes the collective of warp `warp` if all its lanes wait at it; false if not all wait.
bool resolveWarp(unsigned warp) {
  Fiber* lanes = &run->fibers[warp * 32];
  bool anyWaiting = false, allWaiting = true;
  for (unsigned l = 0; l < 32; ++l) {
    anyWaiting |= lanes[l].state == State::AtCollective;
    allWaiting &= lanes[l].state == State::AtCollective;
  }
  if (!anyWaiting) return false;
  if (!allWaiting) return false;
  const Fiber& first = lanes[0];
  unsigned ballotBits = 0;
  for (unsigned l = 0; l < 32; ++l) {
    const Fiber& f = lanes[l];
    if (f.collective != first.collective || f.line != first.line || std::strcmp(f.file, first.file) != 0 ||
        f.mask != 0xFFFFFFFFu || f.laneMask != first.laneMask) {
      throw std::logic_error("lanes of a warp disagree on a warp collective: " + where(warp * 32 + l, f.file, f.line) +
                             " vs " + where(warp * 32, first.file, first.line));
    }
    if (f.resolver != first.resolver) {
      throw std::logic_error("lanes of a warp run different warp-wide instructions: " + where(warp * 32 + l, f.file, f.line) +
                             " vs " + where(warp * 32, first.file, first.line));
    }
    if (f.value != 0) ballotBits |= 1u << l;
  }
  if (first.collective == Collective::Exchange) {
    const void* inputs[32];
    void* outputs[32];
    for (unsigned l = 0; l < 32; ++l) {
      inputs[l] = lanes[l].input;
      outputs[l] = lanes[l].output;
    }
    first.resolver(inputs, outputs);
    for (unsigned l = 0; l < 32; ++l) lanes[l].state = State::Ready;
    return true;
  }
  for (unsigned l = 0; l < 32; ++l) {
    Fiber& f = lanes[l];
    const unsigned source = first.collective == Collective::Shuffle ? static_cast<unsigned>(first.laneMask & 31)
                                                                      : l ^ static_cast<unsigned>(first.laneMask & 31);
    f.result = first.collective == Collective::Ballot ? ballotBits : lanes[source].value;
    f.state = State::Ready;
  }
  return true;
}

void runBlock(BlockRun& block) {
  const unsigned threads = static_cast<unsigned>(block.fibers.size());
  for (unsigned t = 0; t < threads; ++t) {
    Fiber& f = block.fibers[t];
    f.state = State::Ready;
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.get();
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = nullptr;
    makecontext(&f.context, fiberMain, 0);
  }
  for (;;) {
    for (unsigned t = 0; t < threads; ++t) {
      if (block.fibers[t].state != State::Ready) continue;
      resume(t);
      if (block.error) std::rethrow_exception(block.error);
      if (block.afterRun != nullptr && *block.afterRun) (*block.afterRun)(t);
    }
    bool progressed = false;
    for (unsigned w = 0; w < threads / 32; ++w) progressed |= resolveWarp(w);
    // A sleeper looks again once a phase has completed since it went to sleep.
    for (Fiber& f : block.fibers) {
      if (f.state == State::Sleeping && f.phasesSeen != completedPhases) {
        f.state = State::Ready;
        progressed = true;
      }
    }
    if (progressed) continue;

    unsigned done = 0, atBarrier = 0, first = threads;
    for (unsigned t = 0; t < threads; ++t) {
      const Fiber& f = block.fibers[t];
      if (f.state == State::Done) ++done;
      if (f.state == State::AtBarrier) {
        ++atBarrier;
        if (first == threads) first = t;
      }
    }
    if (done == threads) return;
    if (atBarrier + done == threads && done > 0) {
      throw std::logic_error("__syncthreads() reached by some threads after others exited: " +
                             where(first, block.fibers[first].file, block.fibers[first].line));
    }
    if (atBarrier == threads) {
      const Fiber& f0 = block.fibers[first];
      for (unsigned t = 0; t < threads; ++t) {
        const Fiber& f = block.fibers[t];
        if (f.line != f0.line || std::strcmp(f.file, f0.file) != 0) {
          throw std::logic_error("threads of a block wait at different __syncthreads(): " + where(t, f.file, f.line) +
                                 " vs " + where(first, f0.file, f0.line));
        }
      }
      for (Fiber& f : block.fibers) f.state = State::Ready;
      continue;
    }
    for (unsigned t = 0; t < threads; ++t) {
      const Fiber& f = block.fibers[t];
      if (f.state == State::Sleeping) {
        throw std::logic_error("an mbarrier wait can never complete (no thread left to arrive or copy): " +
                               where(t, f.file, f.line));
      }
    }
    for (unsigned t = 0; t < threads; ++t) {
      const Fiber& f = block.fibers[t];
      if (f.state == State::AtCollective) {
        throw std::logic_error("a warp collective is not reached by all 32 lanes (some wait at a barrier or exited): " +
                               where(t, f.file, f.line));
      }
    }
    throw std::logic_error("the block can make no progress");
  }
}

}  // namespace

void syncThreads(const char* file, int line) {
  Fiber& self = run->fibers[run->current];
  self.state = State::AtBarrier;
  self.file = file;
  self.line = line;
  switchToScheduler();
}

void sleepUntilBarrierPhase(const char* file, int line) {
  Fiber& self = run->fibers[run->current];
  self.state = State::Sleeping;
  self.phasesSeen = completedPhases;
  self.file = file;
  self.line = line;
  switchToScheduler();
}

void noteBarrierPhase() { ++completedPhases; }

void warpExchange(WarpResolver resolve, const void* input, void* output, const char* file, int line) {
  Fiber& self = run->fibers[run->current];
  self.resolver = resolve;
  self.input = input;
  self.output = output;
  collective(Collective::Exchange, 0xFFFFFFFFu, 0, 0, file, line);
  self.resolver = nullptr;
}

unsigned ballot(unsigned mask, bool predicate, const char* file, int line) {
  return collective(Collective::Ballot, mask, predicate ? 1u : 0u, 0, file, line);
}

unsigned shuffleXor(unsigned mask, unsigned value, int laneMask, const char* file, int line) {
  return collective(Collective::ShuffleXor, mask, value, laneMask, file, line);
}

unsigned shuffle(unsigned mask, unsigned value, int sourceLane, const char* file, int line) {
  return collective(Collective::Shuffle, mask, value, sourceLane, file, line);
}

void launch(unsigned blocks, unsigned threads, const std::function<void()>& kernel,
            const std::function<void(unsigned thread)>& afterRun) {
  if (threads == 0 || threads % 32 != 0 || threads > 1024) {
    throw std::logic_error("the emulator runs blocks of 32 to 1024 threads, a multiple of 32; got " +
                           std::to_string(threads));
  }
  BlockRun block;
  block.kernel = &kernel;
  block.afterRun = &afterRun;
  block.fibers.resize(threads);
  for (Fiber& f : block.fibers) f.stack.reset(new char[kStackBytes]);
  BlockRun* previous = run;
  run = &block;
  gridDim = uint3{blocks, 1, 1};
  blockDim = uint3{threads, 1, 1};
  try {
    for (unsigned b = 0; b < blocks; ++b) {
      blockIdx = uint3{b, 0, 0};
      poisonSharedMemory();
      runBlock(block);
    }
  } catch (...) {
    run = previous;
    throw;
  }
  run = previous;
}

}  // namespace tileskip::emu
