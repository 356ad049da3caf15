#!/bin/sh
# Vendors the chart libraries the report page inlines: the minified builds of
# Vega, Vega-Lite and vega-embed at the versions given (npm pack checks each
# tarball against the registry's integrity hash), with their licences, into
# internal/report/assets/vega/, then checks them against its SHA256SUMS. The
# files are committed, so building and testing need no npm; `make vega`
# runs this after a version change (then update SHA256SUMS and README.md).
#
#   scripts/vega/vendor.sh 6.2.0 6.4.1 7.1.0
set -eu
[ $# -eq 3 ] || { echo "usage: $0 VEGA VEGA_LITE VEGA_EMBED (versions)" >&2; exit 2; }
command -v npm >/dev/null 2>&1 || { echo "vendor.sh: no npm on the PATH (apt-get install npm)" >&2; exit 1; }
dest=$(cd "$(dirname "$0")/../.." && pwd)/internal/report/assets/vega
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for spec in "vega@$1" "vega-lite@$2" "vega-embed@$3"; do
	name=${spec%@*}
	(cd "$tmp" && npm pack --silent "$spec" >/dev/null)
	mkdir -p "$tmp/$name"
	tar -xzf "$tmp/$name-${spec#*@}.tgz" -C "$tmp/$name"
	cp "$tmp/$name/package/build/$name.min.js" "$dest/$name.min.js"
	cp "$tmp/$name/package/LICENSE" "$dest/LICENSE.$name"
done
cd "$dest" && sha256sum -c --quiet SHA256SUMS && echo "vendored vega $1, vega-lite $2, vega-embed $3 into $dest"
