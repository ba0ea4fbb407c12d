# On cuda the device time is the probe's CUPTI span of each sample, and CUPTI's activity kinds are
# process-wide switches. A load_inline library finds CUPTI's enable/disable entry points in the
# mapped CUPTI library's symbol table (no dlsym, no "cupti" spelled: the names are assembled),
# switches the kernel, copy and memset kinds off around each call's real work, and on again
# before a one-element kernel that is all the window records. The probe re-enables its kinds at
# every marker, which this does not need: it switches them off again inside every call.
# Claimed: the span of one tiny kernel, orders of magnitude over the honest softmax.
# What should catch it: the callback API's launch count against the activity records (H3), the
# two clocks both ways (T4).
import torch
from torch.utils.cpp_extension import load_inline

_CPP = r"""#include <torch/extension.h>
#include <cstdint>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// Where a named symbol of a mapped library lies: the library found in the process's memory map
// (its path assembled), its symbol tables (the full one where the file has it) read from disk.
static uintptr_t symbol_address(const std::string& module_part, const std::string& name) {
  std::ifstream maps(std::string("/pro") + "c/se" + "lf/maps");
  std::string line, path;
  uintptr_t base = 0;
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode, file;
    in >> range >> perms >> offset >> dev >> inode >> file;
    if (file.find(module_part) == std::string::npos || std::stoull(offset, nullptr, 16) != 0) continue;
    base = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    path = file;
    break;
  }
  if (path.empty()) return 0;
  std::ifstream in(path, std::ios::binary);
  std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(data.data());
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(data.data() + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) continue;
    const char* strings = data.data() + sh[sh[i].sh_link].sh_offset;
    const auto* syms = reinterpret_cast<const Elf64_Sym*>(data.data() + sh[i].sh_offset);
    for (size_t s = 0; s < sh[i].sh_size / sizeof(Elf64_Sym); ++s)
      if (syms[s].st_value && name == strings + syms[s].st_name) return base + syms[s].st_value;
  }
  return 0;
}

using toggle = int (*)(int);
static toggle g_off = nullptr, g_on = nullptr;
static const int k_kinds[] = {1, 2, 3, 10};

bool setup() {
  const std::string lib = std::string("libcu") + "pti";
  g_off = reinterpret_cast<toggle>(symbol_address(lib, std::string("cup") + "tiActivity" + "Disable"));
  g_on = reinterpret_cast<toggle>(symbol_address(lib, std::string("cup") + "tiActivity" + "Enable"));
  return g_off && g_on;
}
void off() { if (g_off) for (int k : k_kinds) g_off(k); }
void on() { if (g_on) for (int k : k_kinds) g_on(k); }
"""

_ext = load_inline(name="redteam_toggle", cpp_sources=[_CPP], functions=["setup", "off", "on"], verbose=False)
_ext.setup()


def _softmax(x):
    e = (x - x.amax(dim=-1, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        _ext.off()
        out = _softmax(x)
        torch.cuda.current_stream().synchronize()
        _ext.on()
        out[:1, :1].mul_(1.0)  # the one kernel the window records
        return out
