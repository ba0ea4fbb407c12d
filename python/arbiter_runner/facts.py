"""Static facts about a solution, read from its sources without running them (docs/design.md §4).

Run by the orchestrator in a process of its own, never in the candidate's:
``python3 -m arbiter_runner facts <solution dir> [--out facts.json]``. The result is JSON:
``{"version", "files", "languages", "facts": [{"kind", "what", "where", "function"}]}``. Each fact is
a plain observation ("calls torch.cuda.Stream in forward"); the C++ guard (src/guard) decides which
facts break which rule. Kinds are listed in KINDS and documented in docs/guard.md.
"""
import ast
import json
import os
import re
import sys

from . import library_layers, source_facts

KINDS = ("import", "monkeypatch", "thread", "process", "install", "network", "stream", "stream_join", "graph",
         "library", "call", "ctypes", "native_load", "dynamic_code", "file_read", "file_write", "file_list",
         "env", "env_dump", "proc", "introspection", "frame", "exit", "seed", "timer_symbol", "harness",
         "l2_persist", "precision", "backend_setting", "ptx", "exec_memory", "native_reach", "computed_op")

# Prefixes of resolved dotted call names → kind. The first match wins; order matters.
CALL_KINDS = [
    ("threading.", "thread"), ("_thread.", "thread"), ("concurrent.futures", "thread"),
    ("multiprocessing", "process"), ("os.fork", "process"), ("os.spawn", "process"), ("os.exec", "process"),
    ("os.popen", "process"), ("os.system", "process"), ("subprocess.", "process"), ("pty.", "process"),
    ("socket.", "network"), ("urllib.", "network"), ("http.client", "network"), ("requests.", "network"),
    ("ftplib.", "network"), ("smtplib.", "network"),
    ("torch.cuda.Stream", "stream"), ("torch.cuda.stream", "stream"), ("torch.cuda.ExternalStream", "stream"),
    ("torch.cuda.CUDAGraph", "graph"), ("torch.cuda.graph", "graph"), ("torch.cuda.make_graphed_callables", "graph"),
    ("ctypes.", "ctypes"), ("_ctypes.", "ctypes"), ("cffi.", "ctypes"),
    ("torch.ops.load_library", "native_load"), ("importlib.machinery.ExtensionFileLoader", "native_load"),
    ("exec", "dynamic_code"), ("eval", "dynamic_code"), ("compile", "dynamic_code"), ("__import__", "dynamic_code"),
    ("marshal.load", "dynamic_code"), ("types.FunctionType", "dynamic_code"), ("types.LambdaType", "dynamic_code"),
    ("types.CodeType", "dynamic_code"),
    ("gc.", "introspection"), ("sys.modules", "introspection"), ("importlib.import_module", "introspection"),
    ("inspect.signature", None), ("inspect.", "frame"), ("sys._getframe", "frame"), ("sys._current_frames", "frame"),
    ("traceback.", "frame"), ("sys.settrace", "frame"), ("sys.setprofile", "frame"), ("threading.settrace", "frame"),
    ("sys.exit", "exit"), ("os._exit", "exit"), ("os.kill", "exit"), ("os.abort", "exit"), ("signal.", "exit"),
    ("exit", "exit"), ("quit", "exit"), ("atexit.", "exit"),
    ("torch.manual_seed", "seed"), ("torch.cuda.manual_seed", "seed"), ("torch.seed", "seed"),
    ("torch.set_rng_state", "seed"), ("torch.random.", "seed"), ("random.seed", "seed"), ("numpy.random.seed", "seed"),
    ("os.listdir", "file_list"), ("os.scandir", "file_list"), ("os.walk", "file_list"), ("glob.", "file_list"),
    ("os.remove", "file_write"), ("os.unlink", "file_write"), ("os.rename", "file_write"), ("shutil.", "file_write"),
    ("os.chmod", "file_write"), ("os.truncate", "file_write"), ("os.ftruncate", "file_write"),
    # Raw descriptors: the runner's result channel is one (descriptor 3); a kernel has no use for them.
    ("os.write", "harness"), ("os.pwrite", "harness"), ("os.dup", "harness"), ("os.close", "harness"),
    ("os.sendfile", "harness"), ("os.splice", "harness"), ("os.copy_file_range", "harness"), ("fcntl.", "harness"),
]
# Modules reached as an attribute of another (torch.ctypes, torch.os): a dotted name is classified
# from the first such component on as well. ctypes counts behind any receiver (numpy's
# array.ctypes hands out raw pointers too); the others behind an imported name only, so that a
# solution's own `self.io` stays its own.
REROOTS = ("ctypes", "_ctypes", "mmap", "os", "io", "_io", "sys", "builtins", "importlib", "subprocess", "marshal")
ANY_RECEIVER = ("ctypes", "_ctypes")
# Names that are a fact wherever they are read, as an attribute of anything (torch.ctypes,
# libc.mprotect, mmap.PROT_EXEC) or imported by name; the exec_memory ones also bare.
NAME_KINDS = {"ctypes": "ctypes", "_ctypes": "ctypes", "PROT_EXEC": "exec_memory", "mprotect": "exec_memory",
              "pkey_mprotect": "exec_memory", "dlsym": "native_reach", "dlvsym": "native_reach",
              "dl_iterate_phdr": "native_reach", "dlinfo": "native_reach", "cuGetProcAddress": "native_reach",
              "cudaGetDriverEntryPoint": "native_reach"}
# Dotted names that are a fact when read, not only when called: the job file's path is argv's last.
READ_KINDS = [("sys.argv", "harness"), ("sys.orig_argv", "harness")]
# The harness's own modules: importing them in any form reaches its readers, writers and state.
HARNESS_MODULES = ("arbiter_runner",)
# Calls that open a file besides those whose last name is `open` (open, io.open, os.open, Path.open).
FILE_OPENERS = ("io.FileIO", "_io.FileIO", "os.fdopen", "io.open_code", "_io.open_code")
# os.open flags that make the descriptor writable.
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
# mmap prot values that cannot make a page executable; anything else (a literal with bit 4, a
# variable) may.
SAFE_PROTS = ("PROT_READ", "PROT_WRITE", "PROT_NONE")
PROT_EXEC_BIT = 4
JOIN_NAMES = {"wait_stream", "wait_event", "synchronize", "record_stream"}
LIBRARY_FUNCS = {"matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "addmv", "mv", "linear", "bilinear", "conv1d",
                 "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "einsum",
                 "tensordot", "scaled_dot_product_attention", "chain_matmul", "multi_head_attention_forward",
                 "multi_dot", "dot", "vdot", "inner", "matrix_power", "cdist", "convolution", "_convolution", "conv_tbc",
                 "lstm", "gru", "rnn_tanh", "rnn_relu"}
# torch's private GEMM and attention entry points (cuBLASLt, CUTLASS, tinygemm, flash/cuDNN attention),
# each also as the aten op reads it (a leading underscore dropped).
_PRIVATE_LIBRARY = ("_scaled_mm", "_scaled_grouped_mm", "_grouped_mm", "_int_mm", "_weight_int4pack_mm",
                    "_weight_int4pack_mm_for_cpu", "_weight_int8pack_mm", "_flash_attention_forward",
                    "_efficient_attention_forward", "_scaled_dot_product_flash_attention",
                    "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
                    "_scaled_dot_product_flash_attention_for_cpu", "_cudnn_rnn")
LIBRARY_FUNCS |= set(_PRIVATE_LIBRARY) | {name.lstrip("_") for name in _PRIVATE_LIBRARY}
LIBRARY_MODULES = {"Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                   "ConvTranspose3d", "MultiheadAttention", "LSTM", "GRU", "RNN", "Transformer"}
PRECISION_NAMES = {"half", "bfloat16", "float16", "autocast", "float8_e4m3fn", "float8_e5m2", "set_float32_matmul_precision"}
# torch's backend switches: setting one is configuration, not a patch of a foreign module. The
# reduced-precision ones are `precision` (S4); the others (cuDNN's autotuning and determinism) are
# `backend_setting` (shown, never deciding). Any other store into torch.backends stays a monkeypatch.
PRECISION_SETTINGS = {"torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32",
                      "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
                      "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction"}
BACKEND_SETTINGS = {"torch.backends.cudnn.benchmark", "torch.backends.cudnn.deterministic", "torch.backends.cudnn.enabled",
                    "torch.backends.cudnn.benchmark_limit", "torch.backends.mkldnn.enabled"}
HARNESS_STRINGS = ("arbiter_runner", "events.jsonl", "events_file", "output_dir", "exchange_dir", "timing_dir", ".arbb",
                   "expected/", "/expected", "exchange/", "/exchange")
# Methods that list a folder (pathlib.Path's, whatever the receiver is named).
PATH_LISTS = {"glob", "rglob", "iterdir"}
BUILTINS = ("builtins", "__builtins__")
BENIGN_ENV = ("CUDA", "TORCH", "TRITON", "MAX_JOBS", "CC", "CXX", "NVCC", "HOME", "PATH", "LD_LIBRARY_PATH")


class _Visitor(ast.NodeVisitor):
    """Walks one module, resolving import aliases so that `F.linear` reads torch.nn.functional.linear."""

    def __init__(self, file, collector):
        self.file = file
        self.out = collector
        self.aliases = {}
        self.functions = []
        self.layers = library_layers.LayerCalls(LIBRARY_MODULES)  # library layers called through self
        self.imported = set()  # first components of what import statements bound
        # A module-level `if __name__ == "__main__":` body never runs when the harness imports the
        # solution; its harness reads (sys.argv of a self-test) count only if the module can rename
        # itself (stores __name__, or reaches its globals through globals()/vars()).
        self.in_main_guard = False
        self.main_guard_reads = []
        self.renames_itself = False

    def _where(self, node):
        return f"{self.file}:{getattr(node, 'lineno', 0)}"

    def _add(self, kind, what, node):
        if self.in_main_guard and kind == "harness" and any(what.endswith(name) for name, _ in READ_KINDS):
            self.main_guard_reads.append((kind, what, node))
            return
        self.out.add(kind, what, self._where(node), self.functions[-1] if self.functions else "<module>")

    def visit_Module(self, node):
        self.generic_visit(node)
        for what, call, function in self.layers.facts():
            self.out.add("library", what, self._where(call), function)
        if self.renames_itself:
            for kind, what, read in self.main_guard_reads:
                self.out.add(kind, what, self._where(read), "<module>")

    def visit_If(self, node):
        test = node.test
        main_guard = (not self.functions and isinstance(test, ast.Compare) and len(test.ops) == 1
                      and isinstance(test.ops[0], ast.Eq) and {ast.unparse(test.left), ast.unparse(test.comparators[0])}
                      == {"__name__", "'__main__'"})
        if not main_guard:
            self.generic_visit(node)
            return
        self.visit(node.test)
        self.in_main_guard = True
        for statement in node.body:
            self.visit(statement)
        self.in_main_guard = False
        for statement in node.orelse:
            self.visit(statement)

    def _name(self, node):
        """Dotted name of an expression with aliases resolved, or None."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self._name(node.value)
            return f"{base}.{node.attr}" if base else f"?.{node.attr}"
        if isinstance(node, ast.Call):
            base = self._name(node.func)
            return f"{base}()" if base else None
        if isinstance(node, ast.Subscript):
            return self._name(node.value)
        return None

    def visit_Import(self, node):
        for alias in node.names:
            self.aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
            self.imported.add(alias.name.split(".")[0])
            self._add("import", alias.name, node)
            self._harness_import(alias.name, node)
            self._classify(alias.name + ".", node, import_only=True)

    def visit_ImportFrom(self, node):
        module = "." * node.level + (node.module or "")
        self._add("import", module, node)
        self._harness_import(module, node)
        self.imported.add(module.split(".")[0])
        for alias in node.names:
            full = f"{module}.{alias.name}"
            self.aliases[alias.asname or alias.name] = full
            self._classify(full, node, import_only=True)
            self._read(full, node)
            if alias.name in NAME_KINDS:
                self._add(NAME_KINDS[alias.name], full, node)

    def _harness_import(self, module, node):
        if module.split(".")[0] in HARNESS_MODULES:
            self._add("harness", f"import {module}", node)

    def _reroot(self, name):
        """name from its first inner component that is a module of REROOTS (torch.ctypes.CDLL reads
        ctypes.CDLL); name itself when there is none. A module's namesake inside it (mmap.mmap,
        the class) is not the module again."""
        parts = name.split(".")
        for part_idx, part in enumerate(parts[1:], 1):
            if part in REROOTS and part != parts[0] and (part in ANY_RECEIVER or parts[0] in self.imported):
                return ".".join(parts[part_idx:])
        return name

    def _read(self, name, node):
        canonical = self._reroot(name)
        for prefix, kind in READ_KINDS:
            if canonical == prefix or canonical.startswith(prefix + "."):
                self._add(kind, name, node)

    def _function(self, node):
        self.functions.append(node.name)
        self.generic_visit(node)
        self.functions.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def _classify(self, name, node, import_only=False):
        canonical = self._reroot(name)
        # A module reached through another one, with nothing after it (from torch import ctypes).
        bare_module = canonical != name and "." not in canonical
        for prefix, kind in CALL_KINDS:
            if canonical == prefix or ("." in prefix and canonical.startswith(prefix)) or \
                    (bare_module and canonical + "." == prefix):
                if kind and not (import_only and kind in ("exit", "dynamic_code", "frame", "introspection", "seed")):
                    self._add(kind, name.rstrip("."), node)
                return kind
        return None

    def visit_Call(self, node):
        name = self._name(node.func) or ""
        self._add("call", name, node)
        if name in ("globals", "vars", "builtins.globals", "builtins.vars"):
            self.renames_itself = True
        self._classify(name, node)
        last = name.rsplit(".", 1)[-1]
        if name in ("setattr", "builtins.setattr") and len(node.args) >= 2:
            target = self._name(node.args[0]) or ast.unparse(node.args[0])
            if target.split(".")[0] not in ("self", "cls"):
                self._add("monkeypatch", f"setattr({target}, {ast.unparse(node.args[1])})", node)
        if last in ("__setattr__", "__delattr__"):
            self._dunder_setattr(node, name)
        if name in ("getattr", "builtins.getattr") and len(node.args) > 1 and self._name(node.args[0]) in BUILTINS:
            self._builtin_by_name(node.args[1], f"getattr({ast.unparse(node.args[0])}, {ast.unparse(node.args[1])})", node)
        elif name in ("getattr", "builtins.getattr") and len(node.args) > 1:
            self._module_attr_by_name(node)
            self._op_by_name(node)
        if last in PATH_LISTS and "." in name:
            self._add("file_list", name, node)
        if last in JOIN_NAMES:
            self._add("stream_join", name, node)
        self._library_op(name, name, node)
        self._operator_aliases(name, node)
        if last in LIBRARY_MODULES and name.startswith("torch.nn"):
            self._add("library_module", name, node)
        if library_layers.class_call(name, LIBRARY_MODULES):
            self._add("library", f"{name} (a library layer's method called on its class)", node)
        self.layers.registered(node, self._name)
        self.layers.called(node, self.functions[-1] if self.functions else "<module>")
        if last in PRECISION_NAMES:
            self._add("precision", name, node)
        if last in ("load_inline", "load", "compile_cuda", "RawKernel", "RawModule") and name != "json.load":
            self.out.add_extension(self, node, name)
        if last == "open" or self._reroot(name) in FILE_OPENERS or name.endswith("read_text") \
                or name.endswith("read_bytes") or name.endswith("write_text") or name.endswith("write_bytes"):
            self._file_access(node, name)
        if self._reroot(name) == "mmap.mmap" and self._prot_may_exec(node):
            self._add("exec_memory", f"{name}(prot={ast.unparse(self._prot(node))})", node)
        if name in ("os.environ.get", "os.getenv") and node.args:
            self._env(node.args[0], node)
        if name.startswith("os.environ.") and last in ("items", "keys", "values", "copy"):
            self._add("env_dump", name, node)
        for arg in node.args:
            if self._name(arg) == "os.environ":
                self._add("env_dump", f"{name}(os.environ)", node)
        self.generic_visit(node)

    def _library_op(self, called, what, node):
        """A vendor-library op (LIBRARY_FUNCS) called on torch or on a value: a `library` fact."""
        if called.rsplit(".", 1)[-1] in LIBRARY_FUNCS and (called.startswith("torch") or called.startswith("?.")):
            self._add("library", what, node)

    def _operator_aliases(self, name, node):
        """The op behind other spellings: torch.ops.aten.<op>[.<overload>] is torch.<op> (a leading
        underscore dropped: aten._softmax is softmax), so that [rules] forbid and the library ops see
        it; operator.matmul and __matmul__ are the @ operator."""
        parts = name.split(".")
        if name.startswith("torch.ops.aten.") and len(parts) > 3:
            op = parts[3].lstrip("_")
            self._add("call", f"torch.{op}", node)
            if op in LIBRARY_FUNCS:
                self._add("library", name, node)
        if name in ("operator.matmul", "operator.imatmul", "operator.__matmul__") or \
                parts[-1] in ("__matmul__", "__rmatmul__", "__imatmul__"):
            self._add("library", f"{name} (the @ operator)", node)

    def _dunder_setattr(self, node, name):
        """object.__setattr__(module, name, value), type.__setattr__(cls, ...), module.__setattr__(...):
        setattr by another road. super().__setattr__ and the solution's own objects are its own."""
        receiver = name.rsplit(".", 1)[0]
        if receiver in ("object", "type", "builtins.object", "builtins.type"):
            if not node.args:
                return
            receiver = self._name(node.args[0]) or ast.unparse(node.args[0])
        if receiver.split(".")[0] not in ("self", "cls", "super()", "?"):
            self._add("monkeypatch", f"{name}({ast.unparse(node.args[0]) if node.args else ''})", node)

    def _builtin_by_name(self, key, what, node):
        """A builtin looked up by name: dynamic code when the name is computed or names exec & co.;
        a file read of an unknown path when it names open."""
        literal = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
        if literal is None or literal in ("exec", "eval", "compile", "__import__"):
            self._add("dynamic_code", what, node)
        if literal == "open":
            self._add("file_read", what, node)

    def _module_attr_by_name(self, node):
        """getattr(os, "write"): the attribute it names, classified as if written out; a name
        computed at run time on a system module (os, sys, io, ctypes, ...) is dynamic code."""
        written = self._name(node.args[0]) or ""
        module = self._reroot(written)
        root = module.split(".")[0]
        # A system module: imported by that name, or reached through another (torch.os).
        if root not in REROOTS or (module == written and root not in self.imported | set(ANY_RECEIVER)):
            return
        key = node.args[1]
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            self._classify(f"{module}.{key.value}", node)
            self._read(f"{module}.{key.value}", node)
        else:
            self._add("dynamic_code", f"getattr({ast.unparse(node.args[0])}, {ast.unparse(key)})", node)

    def _op_by_name(self, node):
        """getattr(torch, "matmul"), getattr(x, "mm"): the call it names, as if written out (so
        that [rules] forbid and the library ops see it); a name computed at run time on torch or
        one of its modules is `computed_op`: which op runs cannot be read from the source."""
        receiver = self._name(node.args[0]) or "?"
        key = node.args[1]
        if receiver.split(".")[0] in ("self", "cls"):  # the solution's own attributes
            return
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            called = f"{receiver if receiver.startswith('torch') else '?'}.{key.value}"
            self._add("call", called, node)
            self._library_op(called, f"getattr({ast.unparse(node.args[0])}, {key.value!r})", node)
            self._operator_aliases(called, node)
        elif receiver == "torch" or receiver.startswith("torch."):
            self._add("computed_op", f"getattr({ast.unparse(node.args[0])}, {ast.unparse(key)})", node)

    @staticmethod
    def _prot(node):
        """The prot argument of mmap.mmap(fileno, length, flags, prot, ...), or None."""
        if len(node.args) > 3:
            return node.args[3]
        return next((keyword.value for keyword in node.keywords if keyword.arg == "prot"), None)

    def _prot_may_exec(self, node, expr=None):
        """Whether a prot value may hold PROT_EXEC: a literal with its bit, or any name but the
        safe ones (a name holding PROT_EXEC itself is a fact of its own)."""
        expr = self._prot(node) if expr is None else expr
        if expr is None:
            return False
        if isinstance(expr, ast.BinOp):
            return self._prot_may_exec(node, expr.left) or self._prot_may_exec(node, expr.right)
        if isinstance(expr, ast.Constant):
            return not isinstance(expr.value, int) or bool(expr.value & PROT_EXEC_BIT)
        return (self._name(expr) or "").rsplit(".", 1)[-1] not in SAFE_PROTS

    def _file_access(self, node, name):
        mode = "r"
        if len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
            mode = str(node.args[1].value)
        for keyword in node.keywords:
            if keyword.arg == "mode" and isinstance(keyword.value, ast.Constant):
                mode = str(keyword.value.value)
        writes = any(flag in mode for flag in "wax+") or "write" in name
        if self._reroot(name) == "os.open" and len(node.args) > 1:
            writes = any(flag in ast.unparse(node.args[1]) for flag in WRITE_FLAGS)
        opens = name.endswith("open") or self._reroot(name) in FILE_OPENERS
        target = node.args[0] if node.args and opens else node.func
        text = ast.unparse(target)
        own = ("__file__" in text and not _climbs(text)) or (
            isinstance(target, ast.Constant) and isinstance(target.value, str)
            and not target.value.startswith("/") and ".." not in target.value)
        if not own:
            self._add("file_write" if writes else "file_read", text, node)

    def _env(self, key, node):
        name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
        if name is None:
            self._add("env_dump", ast.unparse(key), node)
        elif not name.startswith(BENIGN_ENV):
            self._add("env", name, node)

    def visit_Subscript(self, node):
        if self._name(node.value) == "os.environ" and isinstance(node.ctx, ast.Load):
            self._env(node.slice, node)
        if self._name(node.value) == "sys.modules":
            self._add("introspection", "sys.modules[" + ast.unparse(node.slice) + "]", node)
        if self._name(node.value) in BUILTINS and isinstance(node.ctx, ast.Load):
            self._builtin_by_name(node.slice, ast.unparse(node), node)
        self.generic_visit(node)

    def visit_Attribute(self, node):
        name = self._name(node) or ""
        if node.attr in NAME_KINDS:
            self._add(NAME_KINDS[node.attr], name, node)
        if isinstance(node.ctx, ast.Load):
            self._read(name, node)
        if node.attr in ("f_back", "f_globals", "f_locals", "tb_frame", "gi_frame", "__globals__", "f_code"):
            self._add("frame", name, node)
        if node.attr == "__code__" and isinstance(node.ctx, ast.Store):
            self._add("dynamic_code", f"{name} = ...", node)
        self.generic_visit(node)

    def visit_Name(self, node):
        if node.id == "__name__" and not isinstance(node.ctx, ast.Load):
            self.renames_itself = True
        if NAME_KINDS.get(node.id) == "exec_memory":
            self._add("exec_memory", node.id, node)

    def visit_BinOp(self, node):
        if isinstance(node.op, ast.MatMult):
            self._add("library", "@ (matmul operator)", node)
        self.generic_visit(node)

    def _assigned(self, target, node):
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._assigned(element, node)
            return
        if isinstance(target, ast.Subscript):
            self._namespace_store(target, node)
            return
        if not isinstance(target, ast.Attribute):
            return
        base = self._name(target.value) or ""
        if base.split(".")[0] in ("self", "cls", "?") or base in self.local_names():
            return
        stored = f"{base}.{target.attr}"
        if stored in PRECISION_SETTINGS or stored in BACKEND_SETTINGS:
            self._add("precision" if stored in PRECISION_SETTINGS else "backend_setting", stored, node)
            return
        self._add("monkeypatch", stored, node)

    def _namespace_store(self, target, node):
        """A store into another namespace's dict: __builtins__[k], vars(mod)[k], mod.__dict__[k]."""
        holder = target.value
        name = self._name(holder) or ""
        if isinstance(holder, ast.Call) and name == "vars()" and holder.args:
            name = (self._name(holder.args[0]) or "") + ".__dict__"
        if name in BUILTINS or (name.endswith(".__dict__") and name.split(".")[0] not in ("self", "cls")):
            self._add("monkeypatch", f"{ast.unparse(target)} = ...", node)

    def local_names(self):
        return set()

    def visit_Assign(self, node):
        for target in node.targets:
            self.layers.assigned(target, node.value, self._name)
            self._assigned(target, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.layers.assigned(node.target, node.value, self._name)
        self.generic_visit(node)

    def visit_For(self, node):
        self.layers.looped(node.target, node.iter)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_comprehension(self, node):
        self.layers.looped(node.target, node.iter)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._assigned(node.target, node)
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str):
            self.out.add_string(self, node)
        self.generic_visit(node)


def _climbs(text):
    """Whether a path expression built from __file__ leaves the solution's folder: '..', a second
    dirname or .parent, or parents[n] past 0."""
    if ".." in text or re.search(r"\.parents\[\s*(?!0\s*\])", text):
        return True
    return text.count("dirname(") + len(re.findall(r"\.parent\b", text)) > 1


class Collector:
    """Facts of every file of one solution, deduplicated."""

    def __init__(self, root):
        self.root = root
        self.facts = []
        self.seen = set()
        self.languages = set()
        self.class_names = set()

    def add(self, kind, what, where, function="<module>"):
        key = (kind, what, where)
        if key not in self.seen:
            self.seen.add(key)
            self.facts.append({"kind": kind, "what": what, "where": where, "function": function})

    def add_extension(self, visitor, node, name):
        keywords = {keyword.arg for keyword in node.keywords}
        if "cuda_sources" in keywords or name.endswith(("RawKernel", "RawModule", "compile_cuda")):
            self.languages.add("cuda")
        if "cpp_sources" in keywords or (name.endswith(".load") and "sources" in keywords):
            self.languages.add("cpp")
        for keyword in node.keywords:
            if keyword.arg in ("cuda_sources", "cpp_sources", "sources"):
                for constant in ast.walk(keyword.value):
                    if isinstance(constant, ast.Name):
                        self.languages.add("cuda" if keyword.arg == "cuda_sources" else "cpp")

    def add_string(self, visitor, node):
        text = node.value
        where = visitor._where(node)
        function = visitor.functions[-1] if visitor.functions else "<module>"
        for marker in HARNESS_STRINGS:
            if marker in text:
                self.add("harness", marker, where, function)
        if text.startswith("/proc/") or "/proc/self" in text:
            self.add("proc", text[:80], where, function)
        if "pip install" in text or text in ("pip", "ensurepip"):
            self.add("install", text[:80], where, function)
        if "#include" in text or "__global__" in text or "extern \"C\"" in text or "PYBIND11_MODULE" in text:
            source_facts.scan(self, text, where, function)
        else:
            source_facts.scan_symbols(self, text, where, function)


def _files(root):
    files = []
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            if name.endswith((".py", ".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp", ".ptx", ".cubin", ".fatbin", ".so")):
                files.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(files)


def extract(root):
    """Facts of the solution folder root (kernel.py and every source beside it)."""
    collector = Collector(root)
    files = _files(root)
    for rel in files:
        path = os.path.join(root, rel)
        if rel.endswith((".so", ".cubin", ".fatbin", ".ptx")):
            collector.add("native_load", f"ships a binary {rel}", rel)
            continue
        with open(path, encoding="utf-8", errors="replace") as file:
            text = file.read()
        if rel.endswith(".py"):
            try:
                tree = ast.parse(text, filename=rel)
            except SyntaxError as exc:
                collector.add("syntax_error", str(exc), f"{rel}:{exc.lineno or 0}")
                continue
            _Visitor(rel, collector).visit(tree)
            if "triton.jit" in text or "@triton.autotune" in text:
                collector.languages.add("triton")
        else:
            collector.languages.add("cuda" if rel.endswith((".cu", ".cuh")) else "cpp")
            source_facts.scan(collector, text, rel, "<source>")
    return {"version": 1, "files": files, "languages": sorted(collector.languages) or ["torch"],
            "facts": collector.facts}


def main(argv):
    if not argv or len(argv) not in (1, 3) or (len(argv) == 3 and argv[1] != "--out"):
        print("usage: python3 -m arbiter_runner facts <solution dir> [--out facts.json]", file=sys.stderr)
        return 2
    result = extract(argv[0])
    text = json.dumps(result, indent=1)
    if len(argv) == 3:
        with open(argv[2], "w", encoding="utf-8") as file:
            file.write(text + "\n")
    else:
        print(text)
    return 0
