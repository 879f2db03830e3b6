#!/usr/bin/env bash
# Runs toolchains/python/wheelcheck on the built wheel: its tags must match what its native code needs.
set -euo pipefail
exec "$1" "$2"
