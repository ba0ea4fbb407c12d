"""arbiter's runner: executes a problem's reference or a candidate solution inside its own process,
exchanging tensors and timings with the orchestrator through files (docs/protocol.md).

Run as ``python3 -m arbiter_runner reference|candidate <job.json>``.
"""
