import torch
from torch.utils.cpp_extension import load_inline

_CPP = r"""
#include <torch/extension.h>
torch::Tensor relu(torch::Tensor a) {
  auto out = torch::empty_like(a);
  auto* src = a.data_ptr<float>();
  auto* dst = out.data_ptr<float>();
  for (int64_t i = 0; i < a.numel(); ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f;
  return out;
}
"""
_ext = load_inline(name="corpus_relu_cpp", cpp_sources=[_CPP], functions=["relu"], verbose=False)

class ModelNew(torch.nn.Module):
    """A C++ extension where the problem asks for C++ or CUDA."""
    def forward(self, a):
        return _ext.relu(a.contiguous())
