"""The installed app's entry script (PyInstaller runs this file as ``__main__``): the same entry
point as the ``castdeck`` command, which also serves ``castdeck sandbox-service`` and the
command-line companions."""

from castdeck.__main__ import run

run()
