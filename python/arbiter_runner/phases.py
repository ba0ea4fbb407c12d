"""Phase bookkeeping: any exception inside a phase becomes that phase's error event and ends the
run (docs/protocol.md: load → compile_error; init, case, timing → runtime_error)."""
import contextlib
import os


class PhaseFailed(Exception):
    """Raised after the error event is written; the process then exits with status 1."""


@contextlib.contextmanager
def phase(events, name, **fields):
    try:
        yield
    except PhaseFailed:
        raise
    except BaseException as exc:  # noqa: B902 - SystemExit and KeyboardInterrupt from solution code too
        events.error(name, exc, **fields)
        raise PhaseFailed(name) from exc


def case_path(root, shape_idx, seed_idx, name):
    return os.path.join(root, str(shape_idx), str(seed_idx), name)


def shape_path(root, shape_idx, name):
    return os.path.join(root, str(shape_idx), name)


def timing_path(job, shape_idx):
    return os.path.join(job["timing_dir"], f"{shape_idx}.json")
