#!/usr/bin/env bash
# Makes and installs metaroce's man pages and bash completion, both generated from the command tree that runs
# (picocli-codegen's ManPageGenerator and picocli's AutoComplete), so they always match --help.
#   tools/install-docs.sh                 # into ~/.local (man: ~/.local/share/man/man1; completion:
#                                         #   ~/.local/share/bash-completion/completions/metaroce)
#   tools/install-docs.sh --prefix /usr/local   # system-wide (as root)
#   tools/install-docs.sh --out DIR       # only make them: DIR/man1/*.1 and DIR/metaroce.bash
# Needs asciidoctor for the man pages (Debian/Ubuntu: apt-get install asciidoctor); without it only the
# completion is installed and the AsciiDoc sources are left in target/man/adoc.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$HOME/.local"
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-docs.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
build="$root/target/man"
rm -rf "$build"
mkdir -p "$build/man1"
"$root/metaroce" man --outdir "$build/adoc" >&2
"$root/metaroce" completion > "$build/metaroce.bash"
if command -v asciidoctor >/dev/null 2>&1; then
  asciidoctor -b manpage -D "$build/man1" "$build"/adoc/*.adoc
  pages=$(ls "$build/man1" | wc -l)
else
  echo "install-docs.sh: asciidoctor not found (apt-get install asciidoctor): no man pages, only the completion;" \
       "the AsciiDoc sources are in $build/adoc" >&2
  pages=0
fi
if [ -n "$out" ]; then
  mkdir -p "$out/man1"
  cp "$build/metaroce.bash" "$out/"
  [ "$pages" -gt 0 ] && cp "$build"/man1/*.1 "$out/man1/"
  echo "made $pages man pages in $out/man1 and the completion $out/metaroce.bash"
  exit 0
fi
mandir="$prefix/share/man/man1"
compdir="$prefix/share/bash-completion/completions"
mkdir -p "$mandir" "$compdir"
cp "$build/metaroce.bash" "$compdir/metaroce"
[ "$pages" -gt 0 ] && cp "$build"/man1/*.1 "$mandir/"
echo "installed $pages man pages in $mandir (try: man metaroce-sim-run) and the completion in $compdir/metaroce"
echo "(bash-completion loads it in new shells; in this one: source $compdir/metaroce; it completes metaroce and ./metaroce)"
