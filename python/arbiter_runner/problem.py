"""Loading Python files by path, and calling a problem's get_inputs / get_init_inputs with the
shape parameters of problem.toml (docs/protocol.md)."""
import contextlib
import importlib.util
import inspect
import os
import sys

import torch

from . import tensors


def load_module(path, name):
    """Imports the file at path as module `name`, with its folder first on sys.path so that it can
    import its siblings. Exceptions from the module's code propagate."""
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before exec: dataclasses and pickling look the module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def require(module, name, path):
    """module.name, or an AttributeError naming the file."""
    value = getattr(module, name, None)
    if value is None:
        raise AttributeError(f"{path} defines no {name}")
    return value


def _keyword_names(fn):
    """(accepts **kwargs, names it accepts by keyword)."""
    params = inspect.signature(fn).parameters.values()
    var_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    names = {p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                  inspect.Parameter.KEYWORD_ONLY)}
    return var_keyword, names


def call_with_shape(fn, module, params):
    """Calls fn with the shape params it accepts: all of them if it takes **kwargs, else those
    whose names it declares. Module-level names equal to a param are set to its value as well, so
    that a bare KernelBench file whose functions read module constants honours the shape."""
    params = dict(params or {})
    for key, value in params.items():
        if hasattr(module, key):
            setattr(module, key, value)
    var_keyword, names = _keyword_names(fn)
    if var_keyword:
        return fn(**params)
    return fn(**{key: value for key, value in params.items() if key in names})


def as_list(values, what):
    """get_inputs / get_init_inputs results as a list (KernelBench returns lists; tuples occur)."""
    if isinstance(values, (list, tuple)):
        return list(values)
    raise TypeError(f"{what} returned {type(values).__name__}, expected a list")


def factory_device(device):
    """A context in which torch's factory functions (randn, randint, randperm, zeros, ...) make
    their tensors on device by default: torch.device as a context manager (torch >= 2.0). On cpu,
    or where torch lacks it, nothing changes."""
    if str(device) == "cpu" or not hasattr(torch.device, "__enter__"):
        return contextlib.nullcontext()
    return torch.device(device)


def make_inputs(module, params, seed, device):
    """module.get_inputs for one seed, its tensors on device. On a GPU they are made there:
    generating a gigabyte of random numbers on the host takes seconds per input set, and a large
    case needs several sets. A set made on a GPU differs from the host's set of the same seed, as
    the GPU's reference outputs differ from the host's anyway; every process of an evaluation reads
    the reference's sets from its files. A get_inputs that cannot run with the device's factories (a
    torch.Generator() of the host passed to randn, say) makes its set on the host, as KernelBench
    makes every set; where that fails too, the host's error is raised. Where the factories stay on
    the host anyway (cpu, or a torch without device contexts) a failure is raised at once."""
    factories = factory_device(device)
    torch.manual_seed(seed)
    try:
        with factories:
            values = as_list(call_with_shape(module.get_inputs, module, params), "get_inputs")
    except Exception:
        if isinstance(factories, contextlib.nullcontext):  # it ran on the host already
            raise
        torch.manual_seed(seed)
        values = as_list(call_with_shape(module.get_inputs, module, params), "get_inputs")
    return tensors.to_device(values, device)
