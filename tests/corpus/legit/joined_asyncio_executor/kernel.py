import asyncio

import torch

_loop = asyncio.new_event_loop()


class ModelNew(torch.nn.Module):
    """Runs the work on asyncio's default executor and waits for it: a worker thread, joined
    before forward returns."""

    def forward(self, a, b):
        return _loop.run_until_complete(_loop.run_in_executor(None, lambda: 2.0 * a + b))
