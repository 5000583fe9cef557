# Replaces PyInstaller's hook for PySide6.QtGui: the same Qt libraries and plugins, less the
# plugins the app never loads (bundle_contents.UNUSED_PLUGINS) and so the libraries only they
# need (a GTK theme's whole GTK stack, the kernel-display platforms' DRM and EGL libraries).
from PyInstaller.utils.hooks.qt import add_qt6_dependencies

import bundle_contents

hiddenimports, binaries, datas = add_qt6_dependencies(__file__)
binaries = bundle_contents.used_plugins(binaries)
