#!/usr/bin/env bash
# Runs both examples over loopback, each as a server and a client process:
#   ./mvnw -B -q -pl examples -am package -DskipTests && examples/run.sh
set -euo pipefail
cd "$(dirname "$0")"
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
JAVA="$JAVA_HOME/bin/java"
if [ ! -d target/lib ] || [ ! -d target/classes ]; then
  echo "build first: ./mvnw -B -q -pl examples -am package -DskipTests" >&2
  exit 1
fi
CP="target/classes:$(printf '%s:' target/lib/*.jar)"
FLAGS=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$CP")

run_pair() { # CLASS [SERVER_ARGS...] -- [CLIENT_ARGS...]
  local cls=$1; shift
  local out; out=$(mktemp)
  "$JAVA" "${FLAGS[@]}" "io.metaroce.examples.$cls" server 127.0.0.1:0 "$@" >"$out" 2>&1 &
  local pid=$!
  local port=""
  for _ in $(seq 1 200); do
    port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$out")
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  if [ -z "$port" ]; then cat "$out" >&2; kill "$pid" 2>/dev/null || true; exit 1; fi
  echo "== $cls (server on 127.0.0.1:$port)"
  "$JAVA" "${FLAGS[@]}" "io.metaroce.examples.$cls" client 127.0.0.1 "127.0.0.1:$port" "$@" | sed 's/^/client: /'
  wait "$pid"
  sed 's/^/server: /' "$out"
  rm -f "$out"
}

run_pair WritePingPong 4096 1000
run_pair RemoteRead
