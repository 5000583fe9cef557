"""Checks of a built bundle: what the app needs is inside, what it does not use is not.

- Every module the app's code imports (read from src/castdeck, at any depth, except imports only
  for type checkers) is in the bundle: in its Python archive, its base library, or as an
  extension module; so is every module of the app itself.
- Every PySide6 module inside has the PySide6 modules it imports when it loads (one for each Qt
  library it links: PySide6.QtMultimedia imports PySide6.QtNetwork).
- Every library, extension module and Qt plugin in the bundle finds the Qt, FFmpeg, PySide and
  Python libraries it links (a Qt library left out by an exclusion would break a plugin that
  links it: Qt's FFmpeg media plugin links QtQuick and QtQml, for one).
- The files looked up at run time are there: eSpeak NG's library and data, the TLS certificates,
  the window icon, the app's own icons (every SVG of src/castdeck/ui/icons), and the Qt plugins
  for windows, audio, SVG icons and images.
- None of the Qt modules, plugins, QML files or translations that are left out came in anyway.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import plistlib
import re
import sys
import zipfile
from pathlib import Path

import bundle_contents
import bundle_elf
import bundle_meta as meta

__all__ = ["check_bundle", "check_info_plist", "check_version_file", "imported_modules"]

OPTIONAL_IMPORTS: dict[str, str] = {
    # module: why the bundle may lack it
}
"""Modules the app's code imports that a bundle may lack, with the reason (none today)."""

_LINKED = re.compile(
    r"(lib)?(Qt6?\w+|pyside6|shiboken6|python3|avcodec|avformat|avutil|swresample|swscale)", re.IGNORECASE
)
"""Linked libraries that must come from inside the bundle (the rest are the system's)."""


# --- what the app imports --------------------------------------------------------------------------------


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Absolute module names ``tree`` imports (``from X import Y`` gives X, and X.Y when that is a
    module: decided later)."""
    found: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking_only(node):
            for statement in node.orelse:
                visit(statement)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            found.add(source)
            found.update(f"{source}.{alias.name}?" for alias in node.names if alias.name != "*")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _is_module(name: str) -> bool:
    """Whether ``name`` (``package.thing``) is a module in this environment. Only ``package``
    itself is imported to find out, never the thing (nor anything when ``package`` is a module:
    then ``thing`` is a name inside it)."""
    parent = name.rpartition(".")[0]
    try:
        spec = importlib.util.find_spec(parent)
        if spec is None or spec.submodule_search_locations is None:
            return False
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError, AttributeError):
        return False


def imported_modules(src: Path) -> set[str]:
    """Every module the code under ``src`` (the castdeck package) imports."""
    wanted: set[str] = set()
    for path in src.rglob("*.py"):
        parts = list(path.relative_to(src.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        wanted |= _imports(tree, ".".join(parts), is_package)
    names = {name for name in wanted if not name.endswith("?")}
    own = bundle_contents.app_modules(src)
    # ``from X import Y``: Y counts when it is a module of its own (the app's, or one in this
    # environment).
    for name in (name[:-1] for name in wanted if name.endswith("?")):
        if name in own or (not name.startswith("castdeck.") and _is_module(name)):
            names.add(name)
    return {name for name in names if name}


# --- what the bundle holds -------------------------------------------------------------------------------


def _layout(folder: Path) -> tuple[Path, Path]:
    """(the executable, the folder holding the libraries and modules)."""
    if folder.suffix == ".app":
        return folder / "Contents" / "MacOS" / meta.EXECUTABLE, folder / "Contents" / "Frameworks"
    executable = folder / (meta.EXECUTABLE + (".exe" if sys.platform == "win32" else ""))
    return executable, folder / "_internal"


def bundled_modules(folder: Path) -> set[str]:
    """Module names the bundle can import: its Python archive, base library and extensions."""
    from PyInstaller.archive.readers import CArchiveReader

    executable, internal = _layout(folder)
    names: set[str] = set()
    package = CArchiveReader(str(executable))
    names |= set(package.open_embedded_archive("PYZ.pyz").toc)
    with zipfile.ZipFile(internal / "base_library.zip") as base:
        for entry in base.namelist():
            if entry.endswith(".pyc"):
                parts = entry[: -len(".pyc")].split("/")
                if parts[-1] == "__init__":
                    parts.pop()
                names.add(".".join(parts))
    suffixes = (*importlib.machinery.EXTENSION_SUFFIXES, ".abi3.so", ".pyd")
    for path in internal.rglob("*"):
        if not path.name.endswith(suffixes) or path.is_dir():
            continue
        parts = list(path.relative_to(internal).parts)
        if len(parts) > 2 and parts[0].startswith("python3") and parts[1] == "lib-dynload":
            parts = parts[2:]
        parts[-1] = parts[-1].split(".", 1)[0]
        names.add(".".join(parts))
    return names


def _qt_plugins(internal: Path) -> Path:
    for candidate in (internal / "PySide6" / "Qt" / "plugins", internal / "PySide6" / "plugins"):
        if candidate.is_dir():
            return candidate
    return internal / "PySide6" / "Qt" / "plugins"


def required_files(folder: Path, src: Path | None = None) -> list[tuple[str, list[Path]]]:
    """(what, [paths of which one must exist]) for the files the app looks up at run time; with
    ``src`` (the castdeck package), each of its icons too."""
    _, internal = _layout(folder)
    data = folder / "Contents" / "Resources" if folder.suffix == ".app" else internal
    plugins = _qt_plugins(internal)
    espeak = {"win32": "espeak-ng.dll", "darwin": "libespeak-ng.dylib"}.get(sys.platform, "libespeak-ng.so")

    def plugin(kind: str, name: str) -> list[Path]:
        return [plugins / kind / f"{prefix}{name}{suffix}" for prefix in ("lib", "")
                for suffix in (".so", ".dylib", ".dll")]  # fmt: skip

    window = {"win32": "qwindows", "darwin": "qcocoa"}.get(sys.platform, "qxcb")
    needed = [
        ("eSpeak NG library", [internal / "espeakng_loader" / espeak]),
        ("eSpeak NG phoneme data", [data / "espeakng_loader" / "espeak-ng-data" / "phontab"]),
        ("eSpeak NG English dictionary", [data / "espeakng_loader" / "espeak-ng-data" / "en_dict"]),
        ("eSpeak NG voice variants", [data / "espeakng_loader" / "espeak-ng-data" / "voices" / "!v"]),
        ("TLS certificates (certifi)", [data / "certifi" / "cacert.pem"]),
        ("window icon", [data / "resources" / "castdeck.svg"]),
        ("Qt window plugin", plugin("platforms", window)),
        ("Qt offscreen plugin", plugin("platforms", "qoffscreen")),
        ("Qt FFmpeg media plugin (audio player)", plugin("multimedia", "ffmpegmediaplugin")),
        ("Qt SVG icon engine", plugin("iconengines", "qsvgicon")),
        ("Qt SVG image format", plugin("imageformats", "qsvg")),
        ("Qt JPEG image format (cover art)", plugin("imageformats", "qjpeg")),
    ]
    for icon in bundle_contents.icon_files(src) if src is not None else []:
        needed.append((f"app icon {icon.stem}", [data.joinpath(*bundle_contents.ICON_FOLDER, icon.name)]))
    if sys.platform == "linux":
        needed += [
            ("Qt Wayland plugin", plugin("platforms", "qwayland")),
            ("Qt desktop portal theme (light/dark)", plugin("platformthemes", "qxdgdesktopportal")),
        ]
    return needed


_BINARY_MAGIC = (
    b"\x7fELF",  # Linux
    b"MZ",  # Windows (PE)
    b"\xfe\xed\xfa\xce",
    b"\xfe\xed\xfa\xcf",
    b"\xce\xfa\xed\xfe",
    b"\xcf\xfa\xed\xfe",  # Mach-O
    b"\xca\xfe\xba\xbe",  # Mach-O, universal
)


def _is_binary(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            head = file.read(4)
    except OSError:
        return False
    return head.startswith(_BINARY_MAGIC)


def _binaries(internal: Path) -> list[Path]:
    """Executables and libraries (by their first bytes) under ``internal``."""
    return [
        path for path in internal.rglob("*") if not path.is_symlink() and path.is_file() and _is_binary(path)
    ]


def linked(path: Path) -> list[str]:
    """The libraries ``path`` links directly (names as written in it)."""
    if bundle_elf.is_elf(path):
        return bundle_elf.needed(path)
    from PyInstaller.depend import bindepend  # Mach-O and PE: their direct imports

    return [name for name, _path in bindepend.get_imports(str(path))]


def unresolved_links(folder: Path) -> list[str]:
    """Libraries in the bundle that link a Qt/FFmpeg/PySide/Python library the bundle lacks."""
    executable, internal = _layout(folder)
    # names of the files there (a link counts when it leads to a file)
    present = {path.name.lower() for path in internal.rglob("*") if path.exists()}
    problems = []
    for binary in [executable, *_binaries(internal)]:
        try:
            imports = linked(binary)
        except Exception as error:
            problems.append(f"{binary.relative_to(folder)}: cannot read its links ({error})")
            continue
        for name in imports:
            base = name.replace("\\", "/").rsplit("/", 1)[-1]
            if _LINKED.match(base) and base.lower() not in present:
                problems.append(f"{binary.relative_to(folder)} links {base}, which is not in the bundle")
    return problems


_QT_LIBRARY = re.compile(r"^(?:lib)?Qt6?(\w+?)(?:\.so.*|\.dll|\.framework.*|\.dylib)?$")


def pyside_dependencies(folder: Path, inside: set[str]) -> list[str]:
    """PySide6 modules a bundled PySide6 module imports at load time but the bundle lacks. A
    module imports the PySide6 module of each Qt library it links, where PySide6 has one."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return ["PySide6 is not installed where the build runs"]
    installed = {path.name.split(".", 1)[0] for path in Path(spec.submodule_search_locations[0]).iterdir()
                 if path.name.startswith("Qt") and path.suffix in (".so", ".pyd")}  # fmt: skip
    _, internal = _layout(folder)
    problems = []
    for module in sorted((internal / "PySide6").glob("Qt*")):
        if module.suffix not in (".so", ".pyd") or module.is_dir():
            continue
        name = module.name.split(".", 1)[0]
        for library in linked(module):
            match = _QT_LIBRARY.match(library.replace("\\", "/").rsplit("/", 1)[-1])
            needed = f"Qt{match.group(1)}" if match else None
            if needed and needed != name and needed in installed and f"PySide6.{needed}" not in inside:
                problems.append(f"PySide6.{name} imports PySide6.{needed}, which is not in the bundle")
    return problems


def left_out_but_present(folder: Path) -> list[str]:
    _, internal = _layout(folder)
    problems = []
    for path in internal.rglob("*"):
        relative = path.relative_to(internal).as_posix()
        if not bundle_contents.shipped(relative):
            problems.append(f"{relative} is in the bundle, but its part is left out")
        parts = relative.split("/")
        qt_module = (
            len(parts) == 2 and parts[0] == "PySide6" and parts[1].startswith("Qt") and ".abi3." in parts[1]
        )
        if qt_module and parts[1].split(".", 1)[0] not in bundle_contents.USED_QT_MODULES:
            problems.append(f"{relative}: a Qt module the app does not use")
        if "plugins/" in relative and path.is_file():
            plugin = relative.split("plugins/", 1)[1]
            if not bundle_contents.plugin_used(plugin):
                problems.append(f"{relative}: a Qt plugin the app does not use")
    return problems


def check_bundle(folder: Path, src: Path) -> list[str]:
    """Everything wrong with the bundle at ``folder`` (empty when it is complete)."""
    if not folder.is_dir():
        return [f"{folder} does not exist"]
    executable, _internal = _layout(folder)
    if not executable.is_file():
        return [f"the executable {executable} is missing"]
    problems = []
    inside = bundled_modules(folder)
    own = bundle_contents.app_modules(src)
    for name in sorted(own - inside):
        problems.append(f"the app's module {name} is not in the bundle")
    for name in sorted(imported_modules(src) - own - inside):
        if name not in OPTIONAL_IMPORTS and name not in sys.builtin_module_names:
            problems.append(f"{name} is imported by the app but not in the bundle")
    for what, candidates in required_files(folder, src):
        if not any(path.exists() for path in candidates):
            problems.append(f"{what} is missing ({candidates[0].relative_to(folder)})")
    problems += pyside_dependencies(folder, inside)
    problems += unresolved_links(folder)
    problems += left_out_but_present(folder)
    if folder.suffix == ".app":
        with (folder / "Contents" / "Info.plist").open("rb") as file:
            plist = plistlib.load(file)
        problems += check_info_plist(plist, raise_error=False)
        if plist.get("CFBundleIdentifier") != meta.BUNDLE_ID:
            problems.append(f"Info.plist: CFBundleIdentifier is {plist.get('CFBundleIdentifier')!r}")
    return problems


# --- platform metadata -----------------------------------------------------------------------------------


def check_info_plist(plist: dict[str, object], *, raise_error: bool = True) -> list[str]:
    """The macOS Info.plist asks for no microphone or camera and supports dark mode."""
    plistlib.dumps(plist)  # raises on a value a property list cannot hold
    problems = [f"Info.plist: {key} must not be there (the app asks for no such permission)"
                for key in meta.FORBIDDEN_PLIST_KEYS if key in plist]  # fmt: skip
    if plist.get("NSRequiresAquaSystemAppearance") is not False:
        problems.append("Info.plist: NSRequiresAquaSystemAppearance must be false (dark mode)")
    if raise_error and problems:
        raise ValueError("; ".join(problems))
    return problems


def check_version_file(path: Path, version: str) -> None:
    """The Windows version resource is a well-formed expression naming this version (PyInstaller
    reads it only on Windows, where its reader's library exists)."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, str(path), mode="eval")
    call = tree.body
    if not (
        isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "VSVersionInfo"
    ):
        raise ValueError(f"{path}: not a VSVersionInfo(...) expression")
    for key in ("FileVersion", "ProductVersion"):
        if f"StringStruct({key!r}, {version!r})" not in text:
            raise ValueError(f"{path}: {key} is not {version}")
    if str(meta.version_tuple(version)) not in text:
        raise ValueError(f"{path}: the numeric version is not {meta.version_tuple(version)}")
