#!/usr/bin/env bash
# How long closing many connections takes on the real datapath (loopback, one JVM), serial vs together:
# bench/teardown.sh [QPs=1000] [rounds=3] [waitMs=3000] [QPs sampled for serial with the peer gone=5]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${JAVA_HOME:-}" && -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
./mvnw -q -B -pl bench -am -DskipTests package
"${JAVA_HOME:+$JAVA_HOME/bin/}java" --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar \
  io.metaroce.bench.TeardownBench "$@"
