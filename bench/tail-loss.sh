#!/usr/bin/env bash
# What a lost last packet costs chained messages (collective steps), on virtual time:
#   bench/tail-loss.sh [--loss 0.01] [--bytes 256KiB] [--messages 2000] [--paths 16] [--seed 1]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${JAVA_HOME:-}" && -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
./mvnw -q -B -o -pl bench -am -DskipTests compile
"${JAVA_HOME:+$JAVA_HOME/bin/}java" -cp core/target/classes:testkit/target/classes:bench/target/classes io.metaroce.bench.TailLossBench "$@"
