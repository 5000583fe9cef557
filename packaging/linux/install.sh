#!/bin/sh
# Castdeck for this user: a launcher in the applications menu, the icons, and `castdeck` on PATH,
# all pointing at this folder (move the folder, then run this again).
#
#   ./install.sh               install (into ~/.local/share and ~/.local/bin)
#   ./install.sh --uninstall   remove the launcher, the icons and the command again
#
# XDG_DATA_HOME and the BIN_DIR environment variable move the two places.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
bin=${BIN_DIR:-$HOME/.local/bin}
desktop="$data/applications/castdeck.desktop"

refresh() {
  if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$data/applications" 2>/dev/null || true
  fi
  if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$data/icons/hicolor/index.theme" ]; then
    gtk-update-icon-cache -q -t "$data/icons/hicolor" 2>/dev/null || true
  fi
}

if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$desktop"
  (cd "$here/share/icons" && find hicolor -name 'castdeck.*') | while read -r icon; do
    rm -f "$data/icons/$icon"
  done
  if [ -L "$bin/castdeck" ]; then rm -f "$bin/castdeck"; fi
  refresh
  echo "Castdeck's launcher, icons and command are removed (this folder and your data are kept)."
  exit 0
fi
if [ $# -gt 0 ]; then
  echo "usage: $0 [--uninstall]" >&2
  exit 2
fi

mkdir -p "$data/applications" "$bin"
(cd "$here/share/icons" && find hicolor -name 'castdeck.*') | while read -r icon; do
  mkdir -p "$data/icons/$(dirname "$icon")"
  cp "$here/share/icons/$icon" "$data/icons/$icon"
done
# The launcher starts this folder's executable, quoted as desktop entries want it (the path may
# hold spaces, quotes or a percent sign).
exec_path=$(printf '%s' "$here/castdeck" | sed 's/[\\"`$]/\\&/g; s/%/%%/g')
while IFS= read -r line; do
  case $line in
    Exec=*) printf 'Exec="%s"\n' "$exec_path" ;;
    *) printf '%s\n' "$line" ;;
  esac
done < "$here/share/applications/castdeck.desktop" > "$desktop.tmp"
mv "$desktop.tmp" "$desktop"
ln -sfn "$here/castdeck" "$bin/castdeck"
refresh
echo "Castdeck is in your applications menu; \`castdeck\` starts it from a terminal ($bin on PATH)."
