"""Static facts (python/arbiter_runner/facts.py) of small sources: the roads to a monkeypatch, to
code built at run time, to ctypes and executable memory, to the harness and to files outside the
solution's folder that are not the plain ones."""
import textwrap

import pytest

from arbiter_runner import facts

# (kind, a one-file solution that must show it)
SEEN = [
    # torch's backend switches: configuration, not patches (any other store into torch.backends is one)
    ("backend_setting", "import torch\ntorch.backends.cudnn.benchmark = True\n"),
    ("precision", "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n"),
    ("precision", "from torch.backends import cudnn\ncudnn.allow_tf32 = True\n"),
    ("precision", "import torch\ntorch.set_float32_matmul_precision('high')\n"),
    ("monkeypatch", "import torch\ntorch.backends.cudnn.is_available = lambda: False\n"),
    # setattr by another road
    ("monkeypatch", "import time\nobject.__setattr__(time, 'perf_counter', lambda: 0.0)\n"),
    ("monkeypatch", "import torch\ntype.__setattr__(torch.Tensor, 'clone', lambda self: self)\n"),
    ("monkeypatch", "import time\ntime.__setattr__('perf_counter', lambda: 0.0)\n"),
    ("monkeypatch", "import time\nvars(time)['perf_counter'] = lambda: 0.0\n"),
    ("monkeypatch", "import time\ntime.__dict__['perf_counter'] = lambda: 0.0\n"),
    ("monkeypatch", "__builtins__['type'] = lambda obj: int\n"),
    ("monkeypatch", "import builtins\nbuiltins.__dict__['isinstance'] = lambda *args: True\n"),
    # code built without exec
    ("dynamic_code", "import marshal, types\nf = types.FunctionType(marshal.loads(b''), globals())\n"),
    ("dynamic_code", "import types\ncode = types.CodeType(*range(16))\n"),
    ("dynamic_code", "def f(): pass\ndef g(): pass\nf.__code__ = g.__code__\n"),
    ("dynamic_code", "import builtins\nrun = getattr(builtins, 'ex' + 'ec')\n"),
    ("dynamic_code", "import builtins\nrun = getattr(builtins, 'exec')\n"),
    ("dynamic_code", "run = __builtins__['ex' + 'ec']\n"),
    # listing through pathlib, whatever the receiver is called
    ("file_list", "import pathlib\nroot = pathlib.Path('/data')\nfound = list(root.glob('*'))\n"),
    ("file_list", "from pathlib import Path\nfound = list(Path(__file__).parents[2].rglob('*.arbb'))\n"),
    ("file_list", "import pathlib\nfound = list(pathlib.Path('..').iterdir())\n"),
    # reads relative to __file__ that climb out of the solution's folder
    ("file_read", "import os\nopen(os.path.join(os.path.dirname(__file__), '..', '..', 'x')).read()\n"),
    ("file_read", "import os\nopen(os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + '/x').read()\n"),
    ("file_read", "import pathlib\n(pathlib.Path(__file__).parents[3] / 'x').read_bytes()\n"),
    ("file_read", "import pathlib\n(pathlib.Path(__file__).parent.parent / 'x').read_text()\n"),
    # ctypes behind another module or object
    ("ctypes", "import torch\n_ct = torch.ctypes\n"),
    ("ctypes", "import torch\nlib = torch.ctypes.CDLL(None)\n"),
    ("ctypes", "from torch import ctypes\n"),
    ("ctypes", "import numpy\nx = numpy.zeros(4)\nx.ctypes.memmove(0, 0, 0)\n"),
    ("ctypes", "import builtins\nm = getattr(__import__('torch'), 'ctypes')\n"),
    # memory made executable
    ("exec_memory", "import mmap\npage = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC)\n"),
    ("exec_memory", "import mmap\npage = mmap.mmap(-1, 4096, prot=7)\n"),
    ("exec_memory", "import mmap\nPROT = 5\npage = mmap.mmap(-1, 4096, mmap.MAP_PRIVATE, PROT)\n"),
    ("exec_memory", "from mmap import *\nRWX = PROT_READ | PROT_WRITE | PROT_EXEC\n"),
    ("exec_memory", "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.mprotect(0, 4096, 7)\n"),
    ("exec_memory", "import ctypes\nprotect = getattr(ctypes.CDLL(None), 'mprotect')\n"),
    # reaching the probe that shares the process: the loader, the driver's entry points, CUPTI
    ("native_reach", "import ctypes\nlibc = ctypes.CDLL(None)\nsym = libc.dlsym\n"),
    ("native_reach", "import ctypes\nwalk = ctypes.CDLL(None).dl_iterate_phdr\n"),
    ("native_reach", "import ctypes\ncupti = ctypes.CDLL('libcupti.so')\n"),
    ("native_reach", "import ctypes\nlib = ctypes.CDLL(None)\nf = getattr(lib, 'cuGetProcAddress')\n"),
    ("native_reach", 'src = """\n#include <cupti.h>\nvoid off() { cuptiActivityDisable(CUPTI_ACTIVITY_KIND_KERNEL); }\n"""\n'),
    ("native_reach", 'src = """\n#include <link.h>\nvoid walk() { dl_iterate_phdr(each, 0); }\n"""\n'),
    ("native_reach", 'src = """\nvoid* find(const char* s) { return dlsym(RTLD_DEFAULT, s); }\n"""\n'),
    ("native_reach", 'src = """\nconst char* where() { return getenv("CUDA_INJECTION64_PATH"); }\n"""\n'),
    ("native_reach", 'src = """\n#include <elf.h>\nbool got(const char* name) { return !strcmp(name, ".got.plt"); }\n"""\n'),
    ("native_reach", "import ctypes\nsection = '.got.plt'\n"),
    ("native_reach", 'src = """\nvoid f() { cudaGetDriverEntryPoint("cuLaunchKernel", &fn, 0, 0); }\n"""\n'),
    ("native_reach", 'src = """\nvoid* g = _GLOBAL_OFFSET_TABLE_; struct link_map* m; struct r_debug* d;\n"""\n'),
    # files opened by other names
    ("file_read", "import io, sys\nwith io.FileIO(sys.argv[-1], 'r') as f:\n    job = f.readall()\n"),
    ("file_write", "import io\nio.FileIO('/data/timing/0.json', 'w').write(b'{}')\n"),
    ("file_write", "from _io import FileIO\nFileIO(path, 'w')\n"),
    ("file_write", "import os\nfd = os.open(path, os.O_WRONLY | os.O_TRUNC)\n"),
    ("file_read", "import os\nfd = os.open('/data/job.json', os.O_RDONLY)\n"),
    ("file_read", "import os\nf = os.fdopen(fd, 'rb')\n"),
    ("file_read", "import builtins\nf = builtins.open('/etc/hosts')\n"),
    ("file_read", "import io\nf = io.open('/etc/hosts')\n"),
    ("file_read", "import builtins\nf = getattr(builtins, 'open')(path)\n"),
    ("file_read", "import torch\nf = torch.os.open('/etc/hosts', 0)\n"),
    # the harness itself: its modules and the job file's path
    ("harness", "from arbiter_runner import bundle, runtime\n"),
    ("harness", "import arbiter_runner.bundle as b\n"),
    ("harness", "from arbiter_runner.bundle import read_bundle\n"),
    ("harness", "import importlib\nb = importlib.import_module('arbiter_runner.bundle')\n"),
    ("harness", "b = __import__('arbiter_runner')\n"),
    ("harness", "import sys\njob = sys.argv[-1]\n"),
    ("harness", "from sys import argv\n"),
    ("harness", "import torch\njob = torch.sys.argv[1]\n"),
    # raw descriptors, the result channel among them
    ("harness", "import os\nos.write(3, b'{}')\n"),
    ("harness", "import os\nos.dup2(os.open('/dev/null', os.O_WRONLY), 3)\n"),
    ("harness", "from os import writev\n"),
    ("harness", "import os\nos.closerange(3, 4)\n"),
    ("harness", "import os\nsend = getattr(os, 'write')\n"),
    # library ops under other spellings
    ("library", "import torch\ny = torch.ops.aten.mm.default(a, b)\n"),
    ("library", "import torch\ny = torch.ops.aten.addmm(c, a, b)\n"),
    ("library", "import operator\ny = operator.matmul(a, b)\n"),
    ("library", "y = a.__matmul__(b)\n"),
    ("harness", "import torch\nsend = getattr(torch.os, 'dup2')\n"),
    ("dynamic_code", "import os\nsend = getattr(os, 'wr' + 'ite')\n"),
    ("dynamic_code", "import sys\nname = 'ar' + 'gv'\njob = getattr(sys, name)[-1]\n"),
    # an op looked up by name: read as written, or a computed name on torch
    ("library", "import torch\nmm = getattr(torch, 'matmul')\n"),
    ("library", "def f(x, w):\n    return getattr(x, 'mm')(w)\n"),
    ("computed_op", "import torch\nop = getattr(torch, 'mat' + 'mul')\n"),
    # torch's private GEMM entry points, also as aten ops
    ("library", "import torch\ndef f(a, b, sa, sb):\n    return torch._scaled_mm(a, b, scale_a=sa, scale_b=sb)\n"),
    ("library", "import torch\ndef f(x, w, g, s):\n    return torch.ops.aten._weight_int4pack_mm.default(x, w, g, s)\n"),
    ("library", "import torch\ndef f(x, w, offs):\n    return torch._grouped_mm(x, w, offs=offs)\n"),
    ("library", "import torch\ndef f(a, b):\n    return torch.inner(a, b)\n"),
    ("computed_op", "import torch.nn.functional as F\ndef f(x, name):\n    return getattr(F, name)(x)\n"),
    # a self-test block runs under the harness once the module renames itself
    ("harness", "import sys\n__name__ = '__main__'\nif __name__ == '__main__':\n    print(sys.argv)\n"),
    ("harness", "import sys\nglobals()['__name__'] = '__main__'\nif __name__ == '__main__':\n    print(sys.argv)\n"),
]

# (kinds, a one-file solution that must show none of them)
UNSEEN = [
    (("monkeypatch",), "import torch\ntorch.backends.cudnn.benchmark = True\ntorch.backends.cudnn.allow_tf32 = False\n"),
    (("monkeypatch",), """
     import torch
     TABLE = {}
     class ModelNew(torch.nn.Module):
         def __init__(self):
             super().__init__()
             super().__setattr__("scale", 2.0)
             object.__setattr__(self, "shift", 0.0)
             self.__dict__["cache"] = {}
             globals()["LOADED"] = True
             TABLE["n"] = 1
     """),
    (("dynamic_code",), "import builtins\nsize = getattr(builtins, 'len')\nhow = __builtins__['max']\n"),
    (("dynamic_code",), "import torch\nname = 'float16'\ndtype = getattr(torch, name)\nact = getattr(torch.nn, 'GELU')\n"),
    (("computed_op", "library"), """
     import torch
     class ModelNew(torch.nn.Module):
         def forward(self, x, name="scale"):
             return getattr(self, name) * x.to(getattr(torch, 'float16'))
     """),
    (("file_read", "file_list"), "import os\nopen(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'k.cu')).read()\n"),
    (("file_read", "file_list"), "import pathlib\n(pathlib.Path(__file__).parent / 'kernel.cu').read_text()\n"),
    (("file_read", "file_list"), "import pathlib\n(pathlib.Path(__file__).parents[0] / 'kernel.cu').read_text()\n"),
    (("file_read", "file_list"), "import pathlib\npathlib.Path(__file__).with_name('kernel.cu').read_text()\n"),
    (("file_read", "file_write"), "import io, os\nio.FileIO(os.path.join(os.path.dirname(__file__), 'k.cu')).readall()\n"),
    (("exec_memory",), "import mmap\npage = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE)\n"),
    (("exec_memory",), "import mmap\npage = mmap.mmap(-1, 4096)\nprint('mprotect refused')\n"),
    (("file_read", "harness"), """
     import torch
     class ModelNew(torch.nn.Module):
         def __init__(self, io, sys):
             super().__init__()
             self.io, self.sys = io, sys
         def forward(self, a):
             return self.io.FileIO(a, self.sys.argv)
     """),
    (("harness",), "from .helpers import scale\nimport argparse\n"),
    # a self-test block never runs when the harness imports the solution
    (("harness",), """
     import sys
     import torch
     class ModelNew(torch.nn.Module):
         def forward(self, x):
             return x * 2
     if __name__ == "__main__":
         print(ModelNew()(torch.ones(int(sys.argv[1]))))
     """),
]


def kinds(tmp_path, source):
    """Fact kinds of a one-file solution."""
    (tmp_path / "kernel.py").write_text(textwrap.dedent(source))
    return {f["kind"] for f in facts.extract(str(tmp_path))["facts"]}


@pytest.mark.parametrize("kind, source", SEEN)
def test_each_road_is_seen(tmp_path, kind, source):
    assert kind in kinds(tmp_path, source)


@pytest.mark.parametrize("absent, source", UNSEEN)
def test_a_solution_s_own_objects_and_files_are_its_own(tmp_path, absent, source):
    assert not kinds(tmp_path, source) & set(absent)


def test_an_aten_overload_reads_as_the_torch_op_it_is(tmp_path):
    (tmp_path / "kernel.py").write_text("import torch\ny = torch.ops.aten._softmax.default(x, -1, False)\n")
    calls = {f["what"] for f in facts.extract(str(tmp_path))["facts"] if f["kind"] == "call"}
    assert "torch.softmax" in calls


def test_an_op_looked_up_by_a_literal_name_reads_as_that_call(tmp_path):
    (tmp_path / "kernel.py").write_text("import torch\nout = getattr(torch, 'softmax')(x, -1)\n"
                                        "alt = getattr(torch.ops.aten, '_softmax')(x, -1, False)\n")
    calls = {f["what"] for f in facts.extract(str(tmp_path))["facts"] if f["kind"] == "call"}
    assert {"torch.softmax", "torch.ops.aten._softmax"} <= calls


HIP_SOURCE = '''
import torch
from torch.utils.cpp_extension import load_inline
SRC = r"""
#include <hip/hip_runtime.h>
#include <rocblas/rocblas.h>
torch::Tensor mm(torch::Tensor a, torch::Tensor b) {
  hipStream_t side; hipStreamCreate(&side);
  rocblas_sgemm(handle, rocblas_operation_none, rocblas_operation_none, m, n, k, &one, pa, m, pb, k, &zero, pc, m);
  hipblasLtMatmul(lt, desc, &one, pa, la, pb, lb, &zero, pc, lc, pc, lc, nullptr, nullptr, 0, side);
  miopenConvolutionForward(h, &one, xd, px, wd, pw, cd, algo, &zero, yd, py, ws, wsz);
  hipEventRecord(start, side);
  return c;
}
"""
ext = load_inline("k", cpp_sources=SRC, functions=["mm"])
'''


def test_hip_sources_read_as_hip_with_rocm_libraries_and_streams(tmp_path):
    (tmp_path / "kernel.py").write_text(HIP_SOURCE)
    result = facts.extract(str(tmp_path))
    assert "hip" in result["languages"] and "cuda" not in result["languages"]
    found = {(f["kind"], f["what"]) for f in result["facts"]}
    for library in ("rocblas_sgemm", "hipblasLtMatmul", "miopenConvolutionForward"):
        assert ("library", library) in found
    assert ("stream", "hipStreamCreate") in found and ("timer_symbol", "hipEventRecord") in found


def test_a_cuda_kernel_is_not_hip(tmp_path):
    (tmp_path / "kernel.py").write_text('SRC = r"""__global__ void k(float* x) { x[0] = 1.f; }"""\n')
    assert facts.extract(str(tmp_path))["languages"] == ["cuda"]
