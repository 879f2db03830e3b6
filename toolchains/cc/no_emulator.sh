#!/usr/bin/env bash
# //toolchains/cc:emulator on the host's own platform: runs the program as it is.
exec "$@"
