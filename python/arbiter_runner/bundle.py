"""Python values ⇄ tensor bundles (.arbb), through the C runtime so that the format has one
implementation. Tensors are written from host memory: callers synchronise the device first."""
import ctypes
import mmap
import os
import struct

import torch

from . import runtime as rt

KIND_TENSOR, KIND_INT, KIND_FLOAT, KIND_BOOL, KIND_NONE = range(5)

# Position = dtype code of docs/protocol.md. Looked up by name so that a torch without float8
# (1.13) still loads; such a dtype is then reported, not crashed on.
DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool",
               "float8_e4m3fn", "float8_e5m2"]
CODE_TO_DTYPE = {code: getattr(torch, name) for code, name in enumerate(DTYPE_NAMES) if hasattr(torch, name)}
DTYPE_TO_CODE = {dtype: code for code, dtype in CODE_TO_DTYPE.items()}
I64, F64, BOOL = 8, 1, 9


def _scalar_record(value):
    """(kind, dtype code, packed bytes) of a Python scalar or None; None when not a scalar."""
    if value is None:
        return KIND_NONE, 0, b""
    if isinstance(value, bool):  # before int: bool is an int subclass
        return KIND_BOOL, BOOL, struct.pack("<?", value)
    if isinstance(value, int):
        return KIND_INT, I64, struct.pack("<q", value)
    if isinstance(value, float):
        return KIND_FLOAT, F64, struct.pack("<d", value)
    return None


def _add_tensor(runtime, handle, tensor, where):
    if tensor.dtype not in DTYPE_TO_CODE:
        raise TypeError(f"{where}: dtype {tensor.dtype} has no bundle code")
    host = tensor.detach().to("cpu").contiguous()
    shape = (ctypes.c_int64 * max(host.dim(), 1))(*host.shape)
    nbytes = host.numel() * host.element_size()
    data = host.data_ptr() if nbytes else None
    rc = runtime.lib.arb_writer_add(handle, KIND_TENSOR, DTYPE_TO_CODE[host.dtype], host.dim(), shape, data, nbytes)
    runtime.check(rc, where)


def _add_value(runtime, handle, value, where):
    if isinstance(value, torch.Tensor):
        _add_tensor(runtime, handle, value, where)
        return
    record = _scalar_record(value)
    if record is None:
        raise TypeError(f"{where}: cannot store a value of type {type(value).__name__} "
                        "(bundles hold tensors, int, float, bool and None)")
    kind, dtype, packed = record
    buffer = ctypes.create_string_buffer(packed, len(packed)) if packed else None
    runtime.check(runtime.lib.arb_writer_add(handle, kind, dtype, 0, None, buffer, len(packed)), where)


def write_bundle(runtime, path, values):
    """Writes values (tensors and Python scalars) to path, creating its folder. On failure no
    bundle is left at path."""
    path = os.fspath(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    handle = ctypes.c_void_p()
    runtime.check(runtime.lib.arb_writer_open(path.encode(), ctypes.byref(handle)), f"open {path}")
    try:
        for value_idx, value in enumerate(values):
            _add_value(runtime, handle, value, f"{path}: value {value_idx}")
    except BaseException:
        runtime.lib.arb_writer_close(handle)  # frees the writer; the partial file is removed below
        if os.path.exists(path):
            os.remove(path)
        raise
    runtime.check(runtime.lib.arb_writer_close(handle), f"close {path}")


def _read_value(runtime, handle, value_idx, path, device):
    kind, dtype, ndim = ctypes.c_int32(), ctypes.c_int32(), ctypes.c_int32()
    shape = (ctypes.c_int64 * rt.ARB_MAX_NDIM)()
    nbytes = ctypes.c_uint64()
    runtime.check(runtime.lib.arb_reader_info(handle, value_idx, ctypes.byref(kind), ctypes.byref(dtype),
                                              ctypes.byref(ndim), shape, ctypes.byref(nbytes)), path)
    if kind.value == KIND_NONE:
        return None
    if kind.value != KIND_TENSOR:
        buffer = ctypes.create_string_buffer(nbytes.value)
        runtime.check(runtime.lib.arb_reader_copy(handle, value_idx, buffer, nbytes.value), path)
        fmt = {KIND_INT: "<q", KIND_FLOAT: "<d", KIND_BOOL: "<?"}[kind.value]
        return struct.unpack(fmt, buffer.raw)[0]
    torch_dtype = CODE_TO_DTYPE.get(dtype.value)
    if torch_dtype is None:
        raise TypeError(f"{path}: value {value_idx}: dtype code {dtype.value} unsupported by torch {torch.__version__}")
    tensor = torch.empty(tuple(shape[:ndim.value]), dtype=torch_dtype)
    data = tensor.data_ptr() if nbytes.value else None
    runtime.check(runtime.lib.arb_reader_copy(handle, value_idx, data, nbytes.value), path)
    return tensor.to(device)


def read_bundle(runtime, path, device="cpu"):
    """The values stored at path, tensors moved to device."""
    path = os.fspath(path)
    handle = ctypes.c_void_p()
    runtime.check(runtime.lib.arb_reader_open(path.encode(), ctypes.byref(handle)), f"open {path}")
    try:
        count = runtime.check(runtime.lib.arb_reader_count(handle), path)
        return [_read_value(runtime, handle, value_idx, path, device) for value_idx in range(count)]
    finally:
        runtime.lib.arb_reader_close(handle)


def _mapped_tensor(runtime, handle, value_idx, path, mapping):
    """Value value_idx of an open reader as a tensor over the file's copy-on-write mapping, or None
    when it is not a tensor (read by copy then)."""
    kind, dtype, ndim = ctypes.c_int32(), ctypes.c_int32(), ctypes.c_int32()
    shape = (ctypes.c_int64 * rt.ARB_MAX_NDIM)()
    nbytes, offset = ctypes.c_uint64(), ctypes.c_uint64()
    runtime.check(runtime.lib.arb_reader_info(handle, value_idx, ctypes.byref(kind), ctypes.byref(dtype),
                                              ctypes.byref(ndim), shape, ctypes.byref(nbytes)), path)
    torch_dtype = CODE_TO_DTYPE.get(dtype.value)
    if kind.value != KIND_TENSOR or torch_dtype is None or nbytes.value == 0:
        return None
    runtime.check(runtime.lib.arb_reader_offset(handle, value_idx, ctypes.byref(offset)), path)
    count = nbytes.value // torch.empty((), dtype=torch_dtype).element_size()
    flat = torch.frombuffer(mapping, dtype=torch_dtype, count=count, offset=offset.value)
    return flat.view(tuple(shape[:ndim.value]))


def _map_every_page(mapping):
    """Reads one byte of every page, so that each page is mapped before any call touches it: the
    batch's first-touch faults then fall where it maps its sets, in the batches that call nothing
    as in the one that calls (and are counted as its overhead there), not in its calls, as on cuda,
    where the sets are copied to the device when mapped. Nothing is copied."""
    with memoryview(mapping) as view, view[::mmap.PAGESIZE] as pages:
        pages.tobytes()


def map_bundle(runtime, path, device="cpu"):
    """The values stored at path, as read_bundle returns them, but with the tensors over a private
    (copy-on-write) mapping of the file instead of copies: every page is mapped for reading (on the
    CPU) and copied only when a call writes it, so a batch of inputs costs no copying up front."""
    path = os.fspath(path)
    with open(path, "rb") as file:
        mapping = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_COPY) if os.fstat(file.fileno()).st_size else None
    if mapping is not None and device == "cpu":
        _map_every_page(mapping)
    handle = ctypes.c_void_p()
    runtime.check(runtime.lib.arb_reader_open(path.encode(), ctypes.byref(handle)), f"open {path}")
    try:
        count = runtime.check(runtime.lib.arb_reader_count(handle), path)
        values = []
        for value_idx in range(count):
            tensor = _mapped_tensor(runtime, handle, value_idx, path, mapping) if mapping is not None else None
            values.append(_read_value(runtime, handle, value_idx, path, device) if tensor is None
                          else tensor if device == "cpu" else tensor.to(device))
        return values
    finally:
        runtime.lib.arb_reader_close(handle)
