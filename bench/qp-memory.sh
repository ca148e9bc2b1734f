#!/usr/bin/env bash
# The engine's heap per idle connected QP (excluding application buffers): bench/qp-memory.sh [QPs] [paths]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${JAVA_HOME:-}" && -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
./mvnw -q -B -pl bench -am -DskipTests compile
"${JAVA_HOME:+$JAVA_HOME/bin/}java" -Xmx4g -cp core/target/classes:bench/target/classes io.metaroce.bench.QpMemoryBench "$@"
