"""Files the benchmark writes whole or not at all."""
import os


def write_atomic(path, text):
    """Writes text to path through a temporary file and a rename: a reader (or a run cut short)
    never sees half a file."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(tmp, path)
