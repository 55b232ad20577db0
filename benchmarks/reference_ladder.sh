#!/usr/bin/env bash
# A straightforward shell implementation of the same ladder, one git process per
# question, as the baseline the Python command is measured against. Benchmark use only.
merge=${LETS_MERGE_BRANCH:-main}
sid_now=${LETS_SESSION_ID:-${CLAUDE_CODE_SESSION_ID:-}}
top=$(git rev-parse --show-toplevel) || exit 0
branch=$(git branch --show-current)
if [ -z "$branch" ]; then
  printf 'SESSION_BOUNDARY=none\nSESSION_TRUST=none\nSESSION_COMMITS=unknown\n'
  printf 'SESSION_RANGE_DESC=boundary unknown - detached HEAD\n'
  exit 0
fi
slug=$(printf '%s' "$branch" | tr '/' '-')
line=$(sed -n 's/^session: //p' "$top/.lets/sessions/.task-$slug" 2>/dev/null | head -n 1)
ref=$(printf '%s\n' "$line" | awk '{print $1}')
stored=$(printf '%s\n' "$line" | awk '{print $2}')
case "$ref" in *[!0-9a-f]*) echo "NOTE: malformed session line" >&2; ref=""; stored="" ;; esac
trust=prior-session
if [ -n "$ref" ] && [ -n "$stored" ] && [ "$stored" = "$sid_now" ]; then trust=exact; fi
if [ -z "$ref" ]; then
  ref=$(head -n 1 "$top/.lets/sessions/.session-start-ref-$slug" 2>/dev/null | awk '{print $1}')
  case "$ref" in *[!0-9a-f]*) ref="" ;; esac
fi
base=$(git merge-base HEAD "origin/$merge" 2>/dev/null || git merge-base HEAD "$merge" 2>/dev/null)
if [ -n "$ref" ]; then
  why=""
  git rev-parse -q --verify "$ref^{commit}" >/dev/null || why="not a commit"
  if [ -z "$why" ] && ! git merge-base --is-ancestor "$ref" HEAD; then why="not an ancestor"; fi
  if [ -z "$why" ] && [ "$branch" != "$merge" ] && [ -n "$base" ] && [ "$ref" != "$base" ] \
     && git merge-base --is-ancestor "$ref" "$base"; then why="predates the branch point"; fi
  if [ -z "$why" ]; then
    when=$(git show -s --format=%ct "$ref")
    case "$when" in ""|*[!0-9]*) why="unreadable time" ;;
      *) [ $(( ($(date +%s) - when) / 86400 )) -gt 14 ] && why="too old" ;; esac
  fi
  if [ -n "$why" ]; then echo "NOTE: $ref rejected ($why)" >&2; ref=""; trust=none; fi
fi
if [ -z "$ref" ] && [ "$branch" != "$merge" ] && [ -n "$base" ]; then ref=$base; trust=estimate; fi
if [ -n "$ref" ]; then
  n=$(git rev-list --count "$ref..HEAD")
  case $trust in
    exact) desc="session: $ref..HEAD ($n commits)" ;;
    prior-session) desc="approx: $ref..HEAD ($n commits) - boundary recorded by an earlier session" ;;
    estimate) desc="approx: $ref..HEAD ($n commits) - estimated from the branch point, no boundary was recorded" ;;
  esac
else
  trust=none; n=""; desc="boundary unknown - no valid session boundary for this branch"
fi
printf 'SESSION_BOUNDARY=%s\nSESSION_TRUST=%s\nSESSION_COMMITS=%s\nSESSION_RANGE_DESC=%s\n' \
  "${ref:-none}" "$trust" "${n:-unknown}" "$desc"
