#!/usr/bin/env bash
# Builds the book with its cells live: gsync-check compiled to WebAssembly
# (web/) is put beside the pages as gsync/gsync_web.wasm, which
# gsync-cells.js looks for. Plain `mdbook build book` gives the same book
# with the cells as highlighted code.
#
#   book/build-with-checker.sh [OUT_DIR]    (default: book/book)
#
# Then serve OUT_DIR over HTTP (`mdbook serve book` does not copy the
# wasm; e.g. `python3 -m http.server -d book/book`): browsers do not run
# the worker of a page opened from a file.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
out="$(realpath -m "${1:-$repo/book/book}")"
cd "$repo"
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
# Its own target directory: a build for the browser does not disturb the
# native one (nor wait for its lock when a test runs this script).
cargo build --quiet --release -p gsync-web --target wasm32-unknown-unknown \
  --target-dir "$repo/target/wasm"
mdbook build book --dest-dir "$out"
mkdir -p "$out/gsync"
cp "$repo/target/wasm/wasm32-unknown-unknown/release/gsync_web.wasm" "$out/gsync/"
echo "book with the checker: $out"
