# The C timing loop reads std::chrono::steady_clock::now through the runtime's PLT, that is through
# a slot of its global offset table. A load_inline library with no Python binding (its static
# constructor runs when torch loads it) finds the runtime in the process's memory map, reads its
# relocations from the file on disk, and repoints that slot at a clock of its own, writing through
# the process's own memory file, which ignores page protections (so a read-only table after full
# RELRO does not stop it). The clock "catches up" (docs/measurement.md names the gap): a read whose
# caller (backtrace()) lies a little after the previous read's, in the same function, ends a sample
# (time_call reads twice around the forward call) and gets a quarter of its gap; the next read
# catches up.
# Each sample is 4x too short while the loop's span, read at its two ends, agrees with the kernel's
# clock (clock_check passes). No symbol the source scan knows is spelled (no dlsym, no mprotect,
# no clock function, no /proc literal).
# Claimed: 4x over the honest softmax.
# What should catch it: the outside clock (T4).
import torch
from torch.utils.cpp_extension import load_inline

_SRC = r"""
#include <chrono>
#include <cstdint>
#include <cstring>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {
using clk = std::chrono::steady_clock;
// Which read ends a sample is told by where it is called from: time_call reads the clock twice,
// the forward call between, so a read whose caller lies a little after the previous read's caller
// (the same function, further on) ends a sample and gets a quarter of its gap; every other read
// is honest and catches up.
void* g_last_site = nullptr;
int64_t g_last_real = 0, g_last_given = 0;
// Address ranges whose frames are not the clock's caller: this library's own.
struct range { uintptr_t lo, hi; };
range g_skip[32];
int g_skips = 0;

void* caller() noexcept {
  void* frames[12] = {};
  const int depth = backtrace(frames, 12);
  for (int f = 0; f < depth; ++f) {
    const auto at = reinterpret_cast<uintptr_t>(frames[f]);
    bool skip = false;
    for (int r = 0; r < g_skips; ++r) skip = skip || (at >= g_skip[r].lo && at < g_skip[r].hi);
    if (!skip) return frames[f];
  }
  return nullptr;
}

int64_t given_for(int64_t real) noexcept {
  void* where = caller();
  const auto step = reinterpret_cast<uintptr_t>(where) - reinterpret_cast<uintptr_t>(g_last_site);
  int64_t given = real;
  if (g_last_real && g_last_site && where > g_last_site && step < 512) given = g_last_given + (real - g_last_real) / 4;
  if (given < g_last_given) given = g_last_given;
  g_last_site = where;
  g_last_real = real;
  g_last_given = given;
  return given;
}

clk::time_point slow_now() noexcept {
  const int64_t real = clk::now().time_since_epoch().count();
  return clk::time_point(clk::duration(given_for(real)));
}

bool find_module(const std::string& needle, uintptr_t& base, std::string& path) {
  std::ifstream maps(std::string("/pro") + "c/se" + "lf/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(needle) == std::string::npos) continue;
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode;
    in >> range >> perms >> offset >> dev >> inode >> path;
    if (std::stoull(offset, nullptr, 16) != 0) continue;
    base = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    return true;
  }
  return false;
}

uintptr_t slot_of(const std::string& file, const char* symbol) {
  std::ifstream in(file, std::ios::binary);
  std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < sizeof(Elf64_Ehdr)) return 0;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(data.data());
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(data.data() + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_RELA) continue;
    const Elf64_Shdr& symtab = sh[sh[i].sh_link];
    const Elf64_Shdr& strtab = sh[symtab.sh_link];
    const auto* rela = reinterpret_cast<const Elf64_Rela*>(data.data() + sh[i].sh_offset);
    for (size_t r = 0; r < sh[i].sh_size / sizeof(Elf64_Rela); ++r) {
      const auto* sym = reinterpret_cast<const Elf64_Sym*>(data.data() + symtab.sh_offset) + ELF64_R_SYM(rela[r].r_info);
      if (ELF64_R_SYM(rela[r].r_info) && std::strcmp(data.data() + strtab.sh_offset + sym->st_name, symbol) == 0)
        return rela[r].r_offset;
    }
  }
  return 0;
}

struct install {
  install() {
    {
      std::ifstream maps(std::string("/pro") + "c/se" + "lf/maps");
      std::string line, own;
      const auto self = reinterpret_cast<uintptr_t>(&given_for);
      std::vector<std::pair<range, std::string>> all;
      while (std::getline(maps, line)) {
        std::istringstream in(line);
        std::string span, perms, offset, dev, inode, file;
        in >> span >> perms >> offset >> dev >> inode >> file;
        const range r{std::stoull(span.substr(0, span.find('-')), nullptr, 16),
                      std::stoull(span.substr(span.find('-') + 1), nullptr, 16)};
        if (self >= r.lo && self < r.hi) own = file;
        all.push_back({r, file});
      }
      for (const auto& [r, file] : all)
        if (g_skips < 32 && !file.empty() && (file == own)) g_skip[g_skips++] = r;
    }
    caller();  // backtrace's first call loads its unwinder: not inside a clock read
    uintptr_t base = 0;
    std::string path;
    if (!find_module(std::string("libarbiter_") + "runtime", base, path)) return;
    const uintptr_t offset = slot_of(path, "_ZNSt6chrono3_V212steady_clock3nowEv");
    if (!offset) return;
    const int mem = open((std::string("/pro") + "c/se" + "lf/mem").c_str(), O_RDWR);
    if (mem < 0) return;
    clk::time_point (*fn)() noexcept = &slow_now;
    pwrite(mem, &fn, sizeof fn, static_cast<off_t>(base + offset));
    close(mem);
  }
} g_install;
}  // namespace
"""

load_inline(name="redteam_rt_slot", cpp_sources=[_SRC], is_python_module=False, verbose=False)


def _softmax(x):
    e = (x - x.amax(dim=-1, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return _softmax(x)
