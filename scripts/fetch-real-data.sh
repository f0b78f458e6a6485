#!/usr/bin/env bash
# Fetches real matrices no one here wrote, at set-up time (nothing is downloaded at build or run
# time), and writes them with a manifest, cases.json, that lists one GEMM A·B per case:
#   - the Matrix Market files inside Debian's r-cran-matrix package (apt-get download; R is not
#     needed), each paired with a seeded dense X, with itself and with its transpose;
#   - the .mat matrices PyPI's pyamg wheel ships (pip download; pyamg is not installed), paired
#     the same way;
#   - a ReLU MLP trained with scikit-learn (Debian python3-sklearn) on its bundled digits data by a
#     seeded script, hidden weights magnitude-pruned: the forward and backward GEMMs of a batch.
# See docs/real-data.md.
#
# Usage: scripts/fetch-real-data.sh [--out DIR] [--force] [--small] [--offline DIR]
#   --out DIR      where to write (default $TILESKIP_REAL_DATA, else data/real in the repository)
#   --force        rebuild even when DIR already holds a complete data set
#   --small        train the MLP a few iterations only (tests); the shapes stay the same
#   --offline DIR  take the .deb and .whl files from DIR instead of the registries (tests)
# Needs: apt-get, dpkg-deb, /usr/bin/python3 with NumPy, SciPy and scikit-learn
# (scripts/install-deps.sh installs them) and, to download, pip (python3-pip).
# Exit codes: 0 done (or already there), 1 a registry could not be reached or a download
# failed, 2 bad usage or a missing tool.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
out="${TILESKIP_REAL_DATA:-$repo/data/real}"
force=0
small=0
offline=""
python="${TILESKIP_PYTHON:-/usr/bin/python3}"
deb_package="r-cran-matrix"
pyamg_spec="${TILESKIP_PYAMG:-pyamg==5.4.1}"

say() { echo "fetch-real-data: $*"; }
die() { echo "fetch-real-data: $2" >&2; exit "$1"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || die 2 "--out needs a folder"; out="$2"; shift 2 ;;
    --force) force=1; shift ;;
    --small) small=1; shift ;;
    --offline) [ $# -ge 2 ] || die 2 "--offline needs a folder"; offline="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die 2 "unknown argument '$1' (try --help)" ;;
  esac
done

command -v dpkg-deb >/dev/null || die 2 "needs dpkg-deb (Debian's dpkg)"
[ -x "$python" ] || die 2 "needs $python (set TILESKIP_PYTHON to another interpreter)"
if ! "$python" -c "import numpy, scipy.io, sklearn" 2>/dev/null; then
  die 2 "needs NumPy, SciPy and scikit-learn for $python: apt-get install python3-numpy python3-scipy python3-sklearn (scripts/install-deps.sh installs them)"
fi

# Idempotent: a complete data set (manifest and every file it lists) is left as it is.
if [ "$force" -eq 0 ] && [ -f "$out/cases.json" ] &&
   "$python" - "$out" <<'EOF'
import json, os, sys
folder = sys.argv[1]
manifest = json.load(open(os.path.join(folder, "cases.json")))
sys.exit(0 if manifest.get("cases") and all(os.path.isfile(os.path.join(folder, name)) for name in manifest["files"]) else 1)
EOF
then
  say "$out already holds a complete data set ($(grep -c '"name"' "$out/cases.json") cases); --force rebuilds it"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/fetched"

if [ -n "$offline" ]; then
  shopt -s nullglob
  debs=("$offline"/*.deb)
  wheels=("$offline"/*.whl)
  shopt -u nullglob
  [ ${#debs[@]} -gt 0 ] || die 1 "no .deb file in $offline (--offline)"
  [ ${#wheels[@]} -gt 0 ] || die 1 "no .whl file in $offline (--offline)"
  cp "${debs[@]}" "${wheels[@]}" "$work/fetched/"
  say "offline: using $(cd "$work/fetched" && echo *)"
else
  command -v apt-get >/dev/null || die 2 "needs apt-get to download $deb_package"
  say "downloading $deb_package from the Debian archive (apt-get download)"
  if ! (cd "$work/fetched" && timeout 300 apt-get download -q -o Acquire::Retries=2 "$deb_package") >"$work/apt.log" 2>&1; then
    cat "$work/apt.log" >&2
    die 1 "could not download $deb_package from the Debian archive (no network, or the package lists are missing: run apt-get update)"
  fi
  "$python" -m pip --version >/dev/null 2>&1 || die 2 "needs pip for $python to download $pyamg_spec: apt-get install python3-pip"
  say "downloading $pyamg_spec from PyPI (pip download, wheel only, not installed)"
  if ! timeout 300 "$python" -m pip download --quiet --no-deps --only-binary=:all: --timeout 30 --retries 2 \
         -d "$work/fetched" "$pyamg_spec" >"$work/pip.log" 2>&1; then
    cat "$work/pip.log" >&2
    die 1 "could not download $pyamg_spec from PyPI (no network, or no wheel for this Python)"
  fi
fi
for f in "$work"/fetched/*; do say "fetched $(basename "$f") ($(du -k "$f" | cut -f1) KiB)"; done

# Build beside the target, then swap it in: an interrupted run never leaves a half-written set.
mkdir -p "$(dirname "$out")"
staging="$out.tmp.$$"
rm -rf "$staging"
trap 'rm -rf "$work" "$staging"' EXIT
args=(--out "$staging" --mlp)
for f in "$work"/fetched/*.deb; do args+=(--deb "$f"); done
for f in "$work"/fetched/*.whl; do args+=(--wheel "$f"); done
[ "$small" -eq 1 ] && args+=(--small)
start=$(date +%s)
"$python" "$repo/scripts/real_data/build_cases.py" "${args[@]}" || die 2 "building the cases failed"
rm -rf "$out.old.$$"
[ -e "$out" ] && mv "$out" "$out.old.$$"
mv "$staging" "$out"
rm -rf "$out.old.$$"
say "wrote $out/cases.json in $(( $(date +%s) - start )) s"
