#!/usr/bin/env bash
# Publishes a compiled snapshot to every reader, one after another (decision 23): copies it beside
# each reader's served path, renames it over that path, and waits until the reader's /readyz names
# the new content hash. If a reader refuses it (its /readyz keeps the old hash) or finds it already
# stale, every reader published so far is rolled back to the file it served before, so that all
# serve one snapshot and no refused file is ever left at a served path (a restart still works).
#
#   deploy/publish.sh [--timeout <seconds>] <snapshot.db> <reader>...
#     <reader>  <base URL>=<served path>: http://10.0.0.11:8787=/srv/cei/snapshots/current.db
#               (the path on this machine, or [user@]host:/path on another, reached with ssh/scp)
#     --timeout how long one reader may take to swap (copy, check: seconds for a large file); 60
#
# Environment: CEI (the cei command, default `cei`), NODE (default `node`), SSH and SCP (default
# `ssh`, `scp`). Exit 0: every reader serves the new hash; 1: rolled back (the reason on stderr);
# 2: bad arguments. Leaves <served path's folder>/previous.db, the file each reader served before,
# for a manual roll back (publish it the same way). docs/operations.md, "Publishing to N readers".
set -euo pipefail

CEI=${CEI:-cei}
NODE=${NODE:-node}
SSH=${SSH:-ssh}
SCP=${SCP:-scp}
timeout=60

usage() {
  echo "usage: $0 [--timeout <seconds>] <snapshot.db> <base URL>=<served path>..." >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage
case "$timeout" in ''|*[!0-9]*) usage ;; esac
snapshot=$1
shift
readers=("$@")

log() { echo "publish: $*" >&2; }

# Where a served path lives: "host" and "path" of [user@]host:/path, or "" and the path.
host_of() { case "$1" in /*) echo "" ;; *:*) echo "${1%%:*}" ;; *) echo "" ;; esac; }
path_of() { case "$1" in /*) echo "$1" ;; *:*) echo "${1#*:}" ;; *) echo "$1" ;; esac; }

# Runs a shell command where the served path lives.
at() {
  local host=$1
  shift
  if [ -z "$host" ]; then sh -c "$*"; else "$SSH" "$host" "$*"; fi
}

quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# The content hash /readyz names: waits until it is $2 (exit 0), or reports what it is at the timeout.
await_hash() {
  "$NODE" -e '
    const [url, want, seconds] = process.argv.slice(1);
    const deadline = Date.now() + Number(seconds) * 1000;
    (async () => {
      let seen = "(no answer)";
      for (;;) {
        try {
          const body = await (await fetch(new URL("/readyz", url), { signal: AbortSignal.timeout(5000) })).json();
          seen = `${body.snapshot} (${body.status}${body.reason ? ": " + body.reason : ""})`;
          if (body.snapshot === want) {
            if (body.reason === "snapshot_stale") { console.log(seen); process.exit(3); }
            process.exit(0);
          }
        } catch (error) {
          seen = `(no answer: ${error.message})`;
        }
        if (Date.now() > deadline) { console.log(seen); process.exit(2); }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();' "$1" "$2" "$3"
}

hash=$($CEI inspect "$snapshot" | "$NODE" -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).content_hash))')
case "$hash" in *[!0-9a-f]*|'') log "$snapshot: no content hash (is it a cei snapshot?)"; exit 1 ;; esac
log "snapshot $hash to ${#readers[@]} reader(s)"

urls=() hosts=() paths=() staged=() kept=()
for reader in "${readers[@]}"; do
  case "$reader" in *=*) ;; *) usage ;; esac
  url=${reader%%=*} target=${reader#*=}
  host=$(host_of "$target") path=$(path_of "$target")
  dir=$(dirname "$path")
  urls+=("$url") hosts+=("$host") paths+=("$path")
  staged+=("$dir/.cei-publish-$hash.db") kept+=("$dir/.cei-publish-previous.db")
done

# 1. Copy to every reader first (beside its served path, so that the rename is atomic): a reader
#    that cannot be reached fails the publish before any reader has changed.
for i in "${!urls[@]}"; do
  if [ -z "${hosts[$i]}" ]; then
    cp "$snapshot" "${staged[$i]}.part"
  else
    "$SCP" -q "$snapshot" "${hosts[$i]}:${staged[$i]}.part"
  fi
  at "${hosts[$i]}" "mv $(quote "${staged[$i]}.part") $(quote "${staged[$i]}") && ln -f $(quote "${paths[$i]}") $(quote "${kept[$i]}")"
done

# 2. One reader after another: rename in, wait for its /readyz to name the new hash.
rollback() {
  local upto=$1 why=$2
  log "$why; rolling back ${urls[*]:0:$((upto + 1))}"
  for j in $(seq "$upto" -1 0); do
    at "${hosts[$j]}" "mv $(quote "${kept[$j]}") $(quote "${paths[$j]}")"
  done
  for j in "${!urls[@]}"; do at "${hosts[$j]}" "rm -f $(quote "${staged[$j]}") $(quote "${kept[$j]}")"; done
  exit 1
}
for i in "${!urls[@]}"; do
  at "${hosts[$i]}" "mv $(quote "${staged[$i]}") $(quote "${paths[$i]}")"
  if seen=$(await_hash "${urls[$i]}" "$hash" "$timeout"); then
    log "${urls[$i]} serves $hash"
  else
    case $? in
      3) rollback "$i" "${urls[$i]} swapped in $hash but finds it stale" ;;
      *) rollback "$i" "${urls[$i]} still serves $seen after ${timeout} s: it refused $hash (its log says why)" ;;
    esac
  fi
done

for i in "${!urls[@]}"; do
  at "${hosts[$i]}" "mv $(quote "${kept[$i]}") $(quote "$(dirname "${paths[$i]}")/previous.db")"
done
log "done: every reader serves $hash"
