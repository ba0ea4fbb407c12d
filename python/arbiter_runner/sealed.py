"""The guard's sealed sets (docs/guard.md, "Sealed mutation sets"). The orchestrator hands each
evaluation its mutation sets in a folder of the candidate's own; the runner opens every file and
empties the folder before the solution is imported, so the solution cannot read a mutation set
ahead of the re-run that uses it, nor precompute its answer. The runner reads them later through
its open descriptors."""
import os
import shutil


class Sealed:
    """{path relative to the sealed folder: open descriptor}, taken before any solution code runs."""

    def __init__(self, root):
        self._fds = {}
        if not root or not os.path.isdir(root):
            return
        for folder, _dirs, files in os.walk(root):
            for name in files:
                path = os.path.join(folder, name)
                self._fds[os.path.relpath(path, root)] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        # The folder itself belongs to the orchestrator; everything in it goes.
        for entry in os.listdir(root):
            shutil.rmtree(os.path.join(root, entry))

    def has(self, rel):
        return rel in self._fds

    def path(self, rel):
        """A path the runtime's reader opens: the descriptor through /proc."""
        return f"/proc/self/fd/{self._fds[rel]}"

    def close(self, rel):
        os.close(self._fds.pop(rel))
