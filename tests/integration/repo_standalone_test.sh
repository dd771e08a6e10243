#!/usr/bin/env bash
# The repository stands alone: no tracked file points outside the clone.
# A user clones only this repository, so no tracked file may name
#   - the sibling "shared" directory of our dev machines ("../shared" followed
#     by a slash), except paths under its data/ folder, which tests read
#     optionally (skipping when absent);
#   - an absolute home or work path of a build machine: a path under /work,
#     under /root, or under /home/<name>. (The fixtures' fake users live in
#     /users/<name>, so no exception is needed for them.)
# Tracked symlinks are not followed; their target text is checked instead.
# Each offence is printed as FILE:LINE: reason: text. Exit 0 pass, 1 fail,
# 77 skip (not a git checkout, or git missing).
# Usage: repo_standalone_test.sh [path-to-llmon-binary]  (the binary is unused;
# run from the repository root, as ctest does)
set -u -o pipefail

NAME="$(basename "${0%.sh}")"
skip() {
  printf '[%s] SKIP: %s\n' "$NAME" "$*" >&2
  exit 77
}
command -v git >/dev/null 2>&1 || skip "git not installed"
ROOT="$(git rev-parse --show-toplevel 2>/dev/null)" || skip "$PWD is not a git checkout"
cd "$ROOT" || exit 1

# Search patterns, spelled so that this file does not match itself.
PREFILTER='\.\./share[d]/|/wor[k]/|/roo[t]/|/hom[e]/[A-Za-z0-9_.-]'

files="$(mktemp)" links="$(mktemp)" hits="$(mktemp)"
trap 'rm -f "$files" "$links" "$hits"' EXIT

# Regular tracked files that exist in the work tree (NUL-separated), and the
# symlinks as "PATH<TAB>TARGET" lines (submodules and deleted files skipped).
count=0
while IFS= read -r -d '' rec; do
  mode="${rec%% *}" path="${rec#*$'\t'}"
  if [[ "$mode" == 120000 ]]; then
    [[ -L "$path" ]] && printf '%s\t%s\n' "$path" "$(readlink "$path")" >>"$links"
  elif [[ -f "$path" && ! -L "$path" ]]; then
    printf '%s\0' "$path" >>"$files"
    count=$((count + 1))
  fi
done < <(git ls-files -s -z)
((count > 0)) || skip "git ls-files lists no files"

# Candidate lines as "PATH<SOH>LINE:TEXT" (grep -Z ends the name with a NUL;
# NULs inside binary fixtures become spaces), then the symlink targets.
{
  xargs -0 -r grep -a -n -H -Z -E "$PREFILTER" -- <"$files" 2>/dev/null | sed 's/\x0/\x01/' | tr '\000' ' '
  awk -F'\t' -v re="$PREFILTER" '$2 ~ re {printf "%s\001symlink:%s\n", $1, $2}' "$links"
} >"$hits"

awk -F'\001' '
BEGIN { bad = 0 }
function report(why) {
  printf "%s:%s: %s: %s\n", path, line, why, text
  bad++
}
{
  path = $1
  rest = substr($0, length($1) + 2)
  line = substr(rest, 1, index(rest, ":") - 1)
  text = substr(rest, index(rest, ":") + 1)
  t = text
  while (match(t, /\.\.\/shared\//)) {
    t = substr(t, RSTART + RLENGTH)
    if (t !~ /^data\//) { report("names the sibling shared directory outside its data/ folder"); next }
  }
  t = " " text
  if (t ~ /[^A-Za-z0-9_.~-]\/work\//) { report("absolute /work path of a build machine"); next }
  if (t ~ /[^A-Za-z0-9_.~-]\/root\//) { report("absolute /root path of a build machine"); next }
  if (t ~ /[^A-Za-z0-9_.~-]\/home\/[A-Za-z0-9_.-]/) { report("absolute /home path of a build machine"); next }
}
END {
  if (bad) {
    printf "[repo_standalone_test] FAIL: %d line(s) point outside the repository\n", bad > "/dev/stderr"
    exit 1
  }
}' "$hits" || exit 1
echo "[$NAME] ok: $count tracked files, none points outside the repository"
