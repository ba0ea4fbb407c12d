# Real work on a stream the harness did not make: created through the driver API (its entry point
# found in libcuda's symbol table, the name assembled: no cuStreamCreate, no torch.cuda.Stream
# spelled), wrapped as an external stream found in torch.cuda's namespace by an assembled name,
# the softmax run there and joined back to the harness stream before returning (so every output
# is correct). The problem does not set extra_streams.
# What should catch it: the probe's stream check on timed calls (T1).
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

using create_fn = int (*)(void**, unsigned);
int64_t make_stream() {
  const auto create = reinterpret_cast<create_fn>(symbol_address("libcuda.so", std::string("cuStream") + "Create"));
  void* stream = nullptr;
  if (!create || create(&stream, 1) != 0) return 0;
  return reinterpret_cast<int64_t>(stream);
}
"""

_ext = load_inline(name="redteam_driver_stream", cpp_sources=[_CPP], functions=["make_stream"], verbose=False)
_External = vars(torch.cuda)["External" + "Stream"]


def _softmax(x):
    e = (x - x.amax(dim=-1, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.side = None

    def forward(self, x):
        if self.side is None:
            self.side = _External(_ext.make_stream())
        harness = torch.cuda.current_stream()
        self.side.wait_stream(harness)
        with vars(torch.cuda)["st" + "ream"](self.side):
            out = _softmax(x)
        harness.wait_stream(self.side)
        return out
