"""Library baseline: torch's RMSNorm, F.rms_norm (torch >= 2.4; fused on CUDA in recent torch).
torch < 2.4 has no F.rms_norm: there this runs the reference's own formula."""
import torch.nn.functional as F

from reference import Model


class ModelSota(Model):
    def forward(self, x):
        if not hasattr(F, "rms_norm"):
            return super().forward(x)
        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)
