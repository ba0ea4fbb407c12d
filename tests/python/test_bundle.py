"""In-process tests of the runner's building blocks: bundles through the real runtime, hashing,
output normalisation and shape-parameter passing."""
import types

import pytest
import torch

from arbiter_runner import bundle, problem, tensors
from arbiter_runner.runtime import RuntimeFailure

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int16,
          torch.int32, torch.int64, torch.bool]


def test_tensor_round_trip_every_dtype(runtime, tmp_path):
    torch.manual_seed(0)
    values = [(torch.randn(3, 4) * 100).to(dtype) for dtype in DTYPES]
    path = tmp_path / "sub" / "values.arbb"
    bundle.write_bundle(runtime, path, values)
    back = bundle.read_bundle(runtime, path)
    assert len(back) == len(values)
    for original, restored in zip(values, back):
        assert restored.dtype == original.dtype
        assert restored.shape == original.shape
        assert torch.equal(restored, original)


def test_shapes_scalars_and_layouts_round_trip(runtime, tmp_path):
    strided = torch.arange(24, dtype=torch.float32).reshape(4, 6).t()  # non-contiguous
    values = [strided, torch.tensor(2.5), torch.empty(0, 3), torch.ones(1, 1, 1, 1, 1, 1, 1, 2),
              7, -(2 ** 40), 0.125, True, False, None]
    path = tmp_path / "mixed.arbb"
    bundle.write_bundle(runtime, path, values)
    back = bundle.read_bundle(runtime, path)
    assert torch.equal(back[0], strided) and back[0].is_contiguous()
    assert back[1].shape == () and back[1].item() == 2.5
    assert back[2].shape == (0, 3)
    assert back[3].shape == (1, 1, 1, 1, 1, 1, 1, 2)
    assert back[4:] == [7, -(2 ** 40), 0.125, True, False, None]
    assert type(back[7]) is bool and type(back[4]) is int


def test_a_mapped_bundle_reads_as_a_copied_one_and_writes_never_reach_the_file(runtime, tmp_path):
    values = [torch.arange(7, dtype=torch.uint8), torch.randn(5, 3), torch.empty(0, 2), 3, None,
              (torch.randn(2, 4) * 9).to(torch.int64)]
    path = tmp_path / "set.arbb"
    bundle.write_bundle(runtime, path, values)
    before = path.read_bytes()
    mapped = bundle.map_bundle(runtime, path)
    copied = bundle.read_bundle(runtime, path)
    for got, want in zip(mapped, copied):
        if isinstance(want, torch.Tensor):
            assert got.dtype == want.dtype and got.shape == want.shape and torch.equal(got, want)
        else:
            assert got == want
    mapped[1].mul_(0)  # a call writing its inputs in place: its own pages, not the file's
    mapped[5][0, 0] = 1
    assert path.read_bytes() == before
    assert bundle.read_bundle(runtime, path)[1].abs().sum() > 0


def _resident_kib(path):
    """Kilobytes of this process's mappings of path that are mapped in (Rss in /proc/self/smaps)."""
    total, inside = 0, False
    for line in open("/proc/self/smaps"):
        if "-" in line.split(" ", 1)[0]:
            inside = line.rstrip().endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total


def test_a_mapped_bundle_on_the_cpu_has_every_page_mapped_before_any_call(runtime, tmp_path):
    # The outside batch's first-touch faults belong where it maps its sets (its overhead), not to
    # the calls: every page is mapped by map_bundle itself.
    path = tmp_path / "big.arbb"
    bundle.write_bundle(runtime, path, [torch.randn(1 << 20)])  # 4 MiB
    mapped = bundle.map_bundle(runtime, path)
    assert _resident_kib(path) >= (4 << 10), "pages of the mapped set were left for the calls to fault in"
    assert mapped[0].numel() == 1 << 20


def test_unsupported_value_leaves_no_bundle(runtime, tmp_path):
    path = tmp_path / "bad.arbb"
    with pytest.raises(TypeError, match="list"):
        bundle.write_bundle(runtime, path, [torch.ones(2), [1, 2]])
    assert not path.exists()
    assert not (tmp_path / "bad.arbb.tmp").exists()


def test_corrupt_bundle_raises_with_the_file_name(runtime, tmp_path):
    path = tmp_path / "corrupt.arbb"
    bundle.write_bundle(runtime, path, [torch.ones(16)])
    path.write_bytes(path.read_bytes()[:-5])
    with pytest.raises(RuntimeFailure, match="corrupt.arbb.*truncated"):
        bundle.read_bundle(runtime, path)


def test_hash_sees_content_dtype_and_shape(runtime):
    base = torch.arange(6, dtype=torch.float32)
    digest = tensors.hash_values(runtime, [base, 3], "cpu")
    assert digest == tensors.hash_values(runtime, [base.clone(), 3], "cpu")
    changed = base.clone()
    changed[5] = 6.5
    assert digest != tensors.hash_values(runtime, [changed, 3], "cpu")
    assert digest != tensors.hash_values(runtime, [base.reshape(2, 3), 3], "cpu")
    assert digest != tensors.hash_values(runtime, [base.to(torch.int32), 3], "cpu")
    assert digest != tensors.hash_values(runtime, [base, 4], "cpu")


def test_normalise_outputs():
    a, b = torch.ones(2), torch.zeros(3)
    assert tensors.normalise_outputs(a)[0] is a
    assert tensors.normalise_outputs((a, b)) == [a, b]
    assert tensors.normalise_outputs([b]) == [b]
    with pytest.raises(TypeError, match="dict"):
        tensors.normalise_outputs({"y": a})
    with pytest.raises(TypeError, match="int"):
        tensors.normalise_outputs((a, 3))
    with pytest.raises(TypeError, match="NoneType"):
        tensors.normalise_outputs(None)


def test_call_with_shape_passes_what_the_function_accepts():
    module = types.SimpleNamespace(rows=1)
    params = {"rows": 3, "cols": 4}
    assert problem.call_with_shape(lambda rows, cols=0: (rows, cols), module, params) == (3, 4)
    assert problem.call_with_shape(lambda cols: cols, module, params) == 4
    assert problem.call_with_shape(lambda **shape: shape, module, params) == params
    assert problem.call_with_shape(lambda: module.rows, module, params) == 3  # module constant follows
    assert not hasattr(module, "cols")  # only names the module already has are set
