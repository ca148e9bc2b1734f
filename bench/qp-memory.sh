#!/usr/bin/env bash
# The engine's heap per idle connected QP (excluding application buffers): bench/qp-memory.sh [QPs] [paths]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
./mvnw -q -B -pl bench -am -DskipTests compile
"$java_bin" -Xmx4g -cp core/target/classes:bench/target/classes io.metaroce.bench.QpMemoryBench "$@"
