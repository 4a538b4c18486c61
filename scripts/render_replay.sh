#!/bin/sh
# Render a replay HTML page (tranca-sim replay RUN --deal I --html PAGE --turn T) to a PNG with
# headless Chromium (Debian package `chromium`), then check the PNG is not blank.
#   scripts/render_replay.sh PAGE.html OUT.png [WIDTHxHEIGHT]
# Exit 0: rendered and non-blank; 1: blank or failed; 2: usage or no chromium.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 PAGE.html OUT.png [1200,900]" >&2
    exit 2
fi
page=$1
out=$2
size=${3:-1200,900}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "$0: chromium not found (Debian: apt-get install -y chromium)" >&2
    exit 2
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
abs=$(cd "$(dirname "$page")" && pwd)/$(basename "$page")
"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
    --screenshot="$out" --window-size="$size" "file://$abs" >/dev/null 2>&1
python3 - "$out" <<'PY'
import sys, zlib, struct
# a non-blank screenshot: a valid PNG whose pixels are not all one colour (stdlib only)
data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit(f"{sys.argv[1]}: not a PNG")
pos, idat, w, h = 8, b"", 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IHDR":
        w, h = struct.unpack(">II", data[pos + 8:pos + 16])
    elif kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
distinct = len(set(raw[i:i + 3] for i in range(1, len(raw), 997)))
if distinct < 8:
    sys.exit(f"{sys.argv[1]}: blank ({distinct} distinct colours sampled)")
print(f"{sys.argv[1]}: {w}x{h} PNG, {distinct} distinct colour samples")
PY
