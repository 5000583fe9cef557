"""Linux: strip the symbol tables the bundle's libraries still carry (the Python library, PyAV's,
NumPy's and Pillow's extension modules: about 60 MB of the unpacked app, 20 MB of the download).

Only files with a symbol table are touched, never the libraries a wheel grafted into its
``*.libs`` folder (auditwheel rewrote them with patchelf, and strip can then misplace their
segments). Each stripped file is checked as the dynamic loader would (every loadable segment's
file offset and address agree modulo its alignment); a file that fails keeps its original.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from bundle_elf import has_symbol_table, loads_aligned

__all__ = ["strip_bundle"]


def strip_bundle(internal: Path) -> tuple[int, int, list[str]]:
    """Strip what can be stripped under ``internal``; (bytes before, bytes after, files kept as
    they were because stripping them failed the check)."""
    strip = shutil.which("strip")
    if strip is None:
        return 0, 0, ["strip (binutils) is not installed: nothing stripped"]
    before = after = 0
    kept: list[str] = []
    for path in sorted(internal.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        if any(part.endswith(".libs") for part in path.relative_to(internal).parts[:-1]):
            continue
        if not has_symbol_table(path):
            continue
        trial = path.with_name(path.name + ".stripped")
        result = subprocess.run([strip, "--strip-unneeded", "-o", str(trial), str(path)],
                                capture_output=True, check=False)  # fmt: skip
        if result.returncode != 0 or not loads_aligned(trial):
            trial.unlink(missing_ok=True)
            kept.append(str(path.relative_to(internal)))
            continue
        before += path.stat().st_size
        after += trial.stat().st_size
        shutil.copymode(path, trial)
        trial.replace(path)
    return before, after, kept
