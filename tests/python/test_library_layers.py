"""Library layers called through the solution's own attributes (python/arbiter_runner/library_layers.py):
each road from a held nn.Linear-like layer to its call is a `library` fact; holding one without
calling it, and calling a layer that is no library's, are not."""
import textwrap

import pytest

from arbiter_runner import facts

HEAD = "import torch\nimport torch.nn as nn\nfrom torch import nn as tnn\n"

CALLED = [
    ("self.fc = nn.Linear(4, 4)", "return self.fc(x)"),
    ("self.fc = torch.nn.Conv2d(3, 3, 3)", "return self.fc.forward(x)"),
    ("self.attn = tnn.MultiheadAttention(8, 2)", "return self.attn(x, x, x)[0]"),
    ("self.body = nn.Sequential(nn.Linear(4, 4), nn.ReLU())", "return self.body(x)"),
    ("self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])", "return self.blocks[1](x)"),
    ("self.blocks = nn.ModuleList([nn.Linear(4, 4)])", "for block in self.blocks:\n    x = block(x)\nreturn x"),
    ("self.blocks = nn.ModuleList([nn.LSTM(4, 4)])", "for i, block in enumerate(self.blocks):\n    x = block(x)\nreturn x"),
    ("self.blocks = nn.ModuleDict({'a': nn.GRU(4, 4)})", "return self.blocks['a'](x)"),
    ("self.fc = nn.Linear(4, 4)", "fc = self.fc\nreturn fc(x)"),
    ("self.blocks = nn.ModuleList([nn.Linear(4, 4)])", "return sum(b(x) for b in self.blocks)"),
    ("self.add_module('fc', nn.Linear(4, 4))", "return self.fc(x)"),
    ("setattr(self, 'fc', nn.Linear(4, 4))", "return self.fc(x)"),
    ("self.fc: nn.Linear = nn.Linear(4, 4)", "return self.fc(x)"),
    # one step to the side: the attribute reached by name, the layer's method called on its class
    ("self.fc = nn.Linear(4, 4)", "return getattr(self, 'fc')(x)"),
    ("self.fc = nn.Linear(4, 4)", "return self._modules['fc'](x)"),
    ("self.fc = nn.Linear(4, 4)", "return nn.Linear.forward(self.fc, x)"),
    ("self.w = nn.Parameter(torch.ones(4))", "return tnn.Conv2d.__call__(self.other, x)"),
]

NOT_CALLED = [
    ("self.fc = nn.Linear(4, 4)", "return x * self.fc.weight[0, 0] + self.fc.bias[0]"),
    ("self.act = nn.ReLU()", "return self.act(x)"),
    ("self.fc = nn.Linear(4, 4); self.scale = lambda t: t * 2", "return self.scale(x)"),
]


def _library_facts(tmp_path, init, forward, forward_first=False):
    init_src = f"    def __init__(self):\n        super().__init__()\n        {init}\n"
    forward_src = "    def forward(self, x):\n" + textwrap.indent(forward, " " * 8) + "\n"
    body = forward_src + init_src if forward_first else init_src + forward_src
    (tmp_path / "kernel.py").write_text(HEAD + "\n\nclass ModelNew(nn.Module):\n" + body)
    return [f for f in facts.extract(str(tmp_path))["facts"] if f["kind"] == "library"]


@pytest.mark.parametrize("init, forward", CALLED)
def test_a_held_library_layer_called_is_a_library_fact(tmp_path, init, forward):
    found = _library_facts(tmp_path, init, forward)
    assert len(found) == 1, found
    assert ("holds an nn." in found[0]["what"] or "on its class" in found[0]["what"]) and found[0]["function"] == "forward"


def test_the_forward_may_come_before_the_init(tmp_path):
    assert _library_facts(tmp_path, "self.fc = nn.Linear(4, 4)", "return self.fc(x)", forward_first=True)


@pytest.mark.parametrize("init, forward", NOT_CALLED)
def test_holding_a_layer_or_calling_another_is_no_library_call(tmp_path, init, forward):
    assert _library_facts(tmp_path, init, forward) == []
