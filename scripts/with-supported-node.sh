#!/usr/bin/env bash
# Runs a command under the Node.js on PATH when it is a supported one (22 or newer), and under the
# newest Node 24 (scripts/node.sh) otherwise, so that `npm start` and `npm test` work as the README
# says on a machine that ships an older Node (the SQLite driver crashes on Node 20). CI's matrix
# runs these scripts under each line through scripts/node.sh, which puts that line first on PATH.
set -euo pipefail
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -ge 22 ]; then
  exec "$@"
fi
echo "Node $(node --version 2>/dev/null || echo '(none)') is not supported (22 or 24 is); running under Node 24 (scripts/node.sh)" >&2
exec "$(dirname "$0")/node.sh" 24 "$@"
