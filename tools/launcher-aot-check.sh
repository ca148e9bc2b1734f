#!/usr/bin/env bash
# Checks the launcher's JDK AOT cache handling: a command starts without JVM error lines after a build, and also
# after a jar under cli/target/lib is replaced by one with an older time stamp (what `./mvnw install -pl ...` does
# when it copies a module's jar from the local repository). Needs the jars built (CI runs it after verify).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
lib=$(find cli/target/lib -name 'metaroce-core-*.jar' -print -quit)
if [ -z "$lib" ]; then
  echo "launcher-aot-check: no cli/target/lib/metaroce-core-*.jar: build first (./mvnw -B -DskipTests package)" >&2
  exit 2
fi
check() {
  local out
  out=$(./metaroce --version 2>&1)
  if grep -q '\[aot\]\|\[error' <<<"$out"; then
    echo "launcher-aot-check: FAIL ($1): the JVM complained about the AOT cache:" >&2
    echo "$out" >&2
    exit 1
  fi
  echo "launcher-aot-check: ok ($1): $(tail -1 <<<"$out")"
}
check "after the build"
check "second start, from the cache"
touch -d '2000-01-01 00:00:00' "$lib"   # the same bytes, an older time stamp than the cache
check "a jar replaced by an older-stamped copy"
