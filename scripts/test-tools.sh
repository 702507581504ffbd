#!/usr/bin/env bash
# The real consumers the export tests validate against, installed from the
# registries into target/test-tools (idempotent, skips what is present):
#   - Hatchet (PyPI llnl-hatchet) loads our Hatchet literal JSON
#   - Extra-P (PyPI extrap) fits the per-variable models of `blame scaling`
#   - pycubexr (PyPI, Extra-P's Cube reader) reads our Cube4 (.cubex) exports
#   - Thicket (PyPI llnl-thicket) loads our Thicket JSON
#   - jsonschema (PyPI) + speedscope's published file-format-schema.json (npm)
#   - go tool pprof (Debian golang-go, installed by deps.sh) reads our pprof
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools=${BLAME_TEST_TOOLS:-$root/target/test-tools}
mkdir -p "$tools"

if [[ ! -x $tools/venv/bin/python ]] || ! "$tools/venv/bin/python" -c "import hatchet, jsonschema" 2>/dev/null; then
  echo "test-tools: installing hatchet and jsonschema into $tools/venv"
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/pip" install -q --disable-pip-version-check llnl-hatchet jsonschema
else
  echo "test-tools: hatchet and jsonschema present"
fi

if [[ ! -x $tools/venv/bin/extrap ]] || ! "$tools/venv/bin/python" -c "import extrap" 2>/dev/null; then
  echo "test-tools: installing Extra-P (extrap) into $tools/venv"
  "$tools/venv/bin/pip" install -q --disable-pip-version-check extrap
else
  echo "test-tools: Extra-P present"
fi

if ! "$tools/venv/bin/python" -c "import pycubexr" 2>/dev/null; then
  echo "test-tools: installing pycubexr into $tools/venv"
  "$tools/venv/bin/pip" install -q --disable-pip-version-check pycubexr
else
  echo "test-tools: pycubexr present"
fi

if ! "$tools/venv/bin/python" -c "import thicket" 2>/dev/null; then
  echo "test-tools: installing Thicket (llnl-thicket) into $tools/venv"
  "$tools/venv/bin/pip" install -q --disable-pip-version-check llnl-thicket
else
  echo "test-tools: Thicket present"
fi

schema=$tools/speedscope/file-format-schema.json
if [[ ! -s $schema ]]; then
  echo "test-tools: fetching speedscope's file-format schema (npm package speedscope)"
  work=$(mktemp -d)
  (cd "$work" && npm pack --silent speedscope >/dev/null)
  mkdir -p "$tools/speedscope"
  tar -xzf "$work"/speedscope-*.tgz -C "$work"
  cp "$work/package/dist/release/file-format-schema.json" "$schema"
  rm -rf "$work"
else
  echo "test-tools: speedscope schema present"
fi
