"""Library baseline: the residual add, then torch's RMSNorm, F.rms_norm (torch >= 2.4; fused on
CUDA in recent torch). torch < 2.4 has no F.rms_norm: there this runs the reference's formula."""
import torch.nn.functional as F

from reference import Model


class ModelSota(Model):
    def forward(self, x, residual):
        if not hasattr(F, "rms_norm"):
            return super().forward(x, residual)
        summed = x + residual
        return F.rms_norm(summed, (summed.shape[-1],), self.weight, self.eps), summed
