#!/usr/bin/env bash
# The include-direction check: src/ layering against docs/architecture.md's
# module table and CMakeLists.txt (tests/tools/module_deps.py says how).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 tests/tools/module_deps.py .
