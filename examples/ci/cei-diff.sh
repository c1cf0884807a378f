#!/usr/bin/env bash
# What a pull request to a curated-data repository changes, as a comment on it: the steps of
# cei-diff.yml, runnable anywhere (the tests run them on fixtures).
#
#   cei-diff.sh [step ...]      steps: compile baseline diff comment verdict (default: all, in order)
#
#   compile   compiles the proposed sources ($CEI_SOURCES) into $CEI_WORK/proposed.db; when they do
#             not compile, the comment lists the problems and the verdict is 1
#   baseline  downloads $CEI_BASELINE_URL (the published snapshot), or else compiles
#             $CEI_BASELINE_SOURCES (the base branch's sources), into $CEI_WORK/baseline.db
#   diff      cei diff --format markdown into $CEI_WORK/comment.md; the verdict is 1 when a kind of
#             $CEI_FAIL_ON occurred (removed, shrink, warnings, or a warning's rule), else 0
#   comment   posts $CEI_WORK/comment.md on pull request $CEI_PR_NUMBER of $GITHUB_REPOSITORY, or
#             updates the comment posted before (upsert-comment.mjs); without GITHUB_TOKEN, only
#             says where the file is; adds it to $GITHUB_STEP_SUMMARY when set
#   verdict   exits with the verdict
#
# Settings (environment): CEI, the command that runs cei (default: npx --no-install cei); CEI_WORK
# (default .cei-diff); CEI_SOURCES (default data); CEI_AS_OF, the reference time of both compiles
# (default: each one's newest observation); CEI_X_SECRET, read by cei compile itself;
# CEI_BASELINE_TOKEN, a bearer token for the download; CEI_MAX_ROWS; NODE (default node).
# Exit codes: 0, or 1 for a failing verdict, or 2 for trouble (a missing setting, cei diff's 2).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
read -r -a cei <<< "${CEI:-npx --no-install cei}"
work=${CEI_WORK:-.cei-diff}
as_of=()
if [ -n "${CEI_AS_OF:-}" ]; then as_of=(--as-of "$CEI_AS_OF"); fi

step_compile() {
  mkdir -p "$work"
  rm -f "$work/proposed.db" "$work/comment.md" "$work/verdict"
  if "${cei[@]}" compile --source "${CEI_SOURCES:-data}" --out "$work/proposed.db" "${as_of[@]}" 2> "$work/compile.log"; then
    cat "$work/compile.log" >&2
    return 0
  fi
  cat "$work/compile.log" >&2
  # Indented, the problems are a code block that no curated text can end.
  {
    printf '### cei diff\n\nThe proposed sources do not compile:\n\n'
    head -n 100 "$work/compile.log" | sed 's/^/    /'
  } > "$work/comment.md"
  echo 1 > "$work/verdict"
  return 1
}

step_baseline() {
  rm -f "$work/baseline.db"
  if [ -n "${CEI_BASELINE_URL:-}" ]; then
    local auth=()
    if [ -n "${CEI_BASELINE_TOKEN:-}" ]; then auth=(-H "Authorization: Bearer $CEI_BASELINE_TOKEN"); fi
    curl -fsSL --retry 3 "${auth[@]}" -o "$work/baseline.db" "$CEI_BASELINE_URL"
  elif [ -n "${CEI_BASELINE_SOURCES:-}" ]; then
    "${cei[@]}" compile --source "$CEI_BASELINE_SOURCES" --out "$work/baseline.db" "${as_of[@]}"
  else
    echo "cei-diff: set CEI_BASELINE_URL (the published snapshot) or CEI_BASELINE_SOURCES (the base branch's sources)" >&2
    return 2
  fi
}

step_diff() {
  local options=(--format markdown) status=0
  if [ -n "${CEI_FAIL_ON:-}" ]; then options+=(--fail-on "$CEI_FAIL_ON"); fi
  if [ -n "${CEI_MAX_ROWS:-}" ]; then options+=(--max-rows "$CEI_MAX_ROWS"); fi
  "${cei[@]}" diff "${options[@]}" "$work/baseline.db" "$work/proposed.db" > "$work/comment.md" || status=$?
  case $status in
    0) echo 0 > "$work/verdict" ;;
    # Without --fail-on, 1 only says that the snapshots differ, which a pull request is for.
    1) if [ -n "${CEI_FAIL_ON:-}" ]; then echo 1 > "$work/verdict"; else echo 0 > "$work/verdict"; fi ;;
    *) echo "cei-diff: cei diff failed (exit $status)" >&2; return 2 ;;
  esac
}

step_comment() {
  if [ ! -f "$work/comment.md" ]; then
    echo "cei-diff: no comment to post" >&2
    return 0
  fi
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$work/comment.md" >> "$GITHUB_STEP_SUMMARY"; fi
  if [ -z "${GITHUB_TOKEN:-}" ]; then
    echo "cei-diff: no GITHUB_TOKEN: the comment is in $work/comment.md" >&2
    return 0
  fi
  "${NODE:-node}" "$here/upsert-comment.mjs" "$work/comment.md"
}

step_verdict() {
  local verdict
  verdict=$(cat "$work/verdict" 2> /dev/null || echo 2)
  if [ "$verdict" != 0 ]; then echo "cei-diff: failing (verdict $verdict)" >&2; fi
  exit "$verdict"
}

if [ $# -eq 0 ]; then
  # The workflow's order: a compile that fails still comments, then fails.
  step_compile || { step_comment; step_verdict; }
  step_baseline
  step_diff
  step_comment
  step_verdict
fi
for step in "$@"; do
  case $step in
    compile | baseline | diff | comment | verdict) "step_$step" ;;
    *) echo "cei-diff: unknown step $step (compile, baseline, diff, comment, verdict)" >&2; exit 2 ;;
  esac
done
