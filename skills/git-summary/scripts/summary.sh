#!/bin/sh
# Read-only summary of a git repository. Usage: summary.sh [REPO] [N_COMMITS]
set -u

repo=${1:-${HOMECLAW_CWD:-.}}
count=${2:-10}
case $repo in
  "~"|"~/"*) repo="$HOME${repo#\~}" ;;
  /*) ;;
  *) repo="${HOMECLAW_CWD:-$(pwd)}/$repo" ;;
esac
case $count in
  ''|*[!0-9]*) echo "error: commit count must be a number, got '$count'" >&2; exit 2 ;;
esac

if ! git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  echo "error: $repo is not inside a git repository" >&2
  exit 2
fi

g() { git -C "$repo" -c color.ui=never -c core.quotepath=off "$@"; }

top=$(g rev-parse --show-toplevel)
branch=$(g symbolic-ref --quiet --short HEAD 2>/dev/null || echo "(detached at $(g rev-parse --short HEAD 2>/dev/null))")
echo "repository: $top"
echo "branch: $branch"
upstream=$(g rev-parse --abbrev-ref --symbolic-full-name '@{upstream}' 2>/dev/null || true)
if [ -n "$upstream" ]; then
  set -- $(g rev-list --left-right --count "HEAD...$upstream" 2>/dev/null || echo "0 0")
  echo "upstream: $upstream (ahead $1, behind $2)"
fi
remotes=$(g remote -v | awk '$3 == "(fetch)" {print "  " $1 " " $2}')
[ -n "$remotes" ] && printf 'remotes:\n%s\n' "$remotes"

if g rev-parse --verify --quiet HEAD >/dev/null; then
  echo "commits: $(g rev-list --count HEAD)"
  echo "tags: $(g tag | wc -l | tr -d ' ')"
else
  echo "commits: 0 (no commits yet)"
fi

status=$(g status --porcelain=v1 2>/dev/null)
if [ -z "$status" ]; then
  echo "working tree: clean"
else
  staged=$(printf '%s\n' "$status" | grep -c '^[MADRC]')
  modified=$(printf '%s\n' "$status" | grep -c '^.[MD]')
  untracked=$(printf '%s\n' "$status" | grep -c '^??')
  echo "working tree: $staged staged, $modified modified, $untracked untracked"
fi

if g rev-parse --verify --quiet HEAD >/dev/null; then
  echo
  echo "recent commits:"
  g log -n "$count" --date=short --pretty='  %h %ad %an: %s'
  echo
  echo "most active authors:"
  g shortlog -sn --no-merges HEAD | head -n 5 | sed 's/^ */  /'
fi
