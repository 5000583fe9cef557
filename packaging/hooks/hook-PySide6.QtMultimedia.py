# Replaces PyInstaller's hook for PySide6.QtMultimedia: its Qt libraries and the FFmpeg media
# plugin, without the QtMultimediaWidgets module the original adds for PySide's
# `true_properties` feature (the app does not use it, nor video widgets).
from PyInstaller.utils.hooks.qt import add_qt6_dependencies

import bundle_contents

hiddenimports, binaries, datas = add_qt6_dependencies(__file__)
binaries = bundle_contents.used_plugins(binaries)
