# Draws the report's Vega-Lite specs as PNG images for index.md with
# vl-convert (vl-convert-python: Vega and Vega-Lite in a Rust/Deno renderer,
# no browser), refusing a build whose Vega or Vega-Lite is not the page's
# (internal/report/assets/vega: Vega 6.2.0, Vega-Lite 6.4.1), so the image
# and the page draw one chart. Reads {"vega": ..., "vega_lite": ...,
# "specs": {name: spec}} on stdin, writes {name: base64 PNG} on stdout, and
# writes no file. Run by internal/report (VLConvert) as python -c.
import base64
import json
import sys

try:
    import vl_convert as vlc
except ImportError:
    print("no module vl_convert", file=sys.stderr)
    sys.exit(3)

req = json.load(sys.stdin)
lite = req["vega_lite"].rsplit(".", 1)[0]
if vlc.get_vega_version() != req["vega"] or lite not in vlc.get_vegalite_versions() or req["vega_lite"] not in vlc.javascript_bundle(vl_version=lite)[:4096 * 1024]:
    print("vl-convert draws Vega %s and Vega-Lite %s, the page Vega %s and Vega-Lite %s"
          % (vlc.get_vega_version(), ", ".join(vlc.get_vegalite_versions()), req["vega"], req["vega_lite"]), file=sys.stderr)
    sys.exit(4)
out = {}
for name, spec in req["specs"].items():
    out[name] = base64.b64encode(vlc.vegalite_to_png(spec, vl_version=lite, scale=1)).decode()
json.dump(out, sys.stdout)
