#!/usr/bin/env bash
# What a lost last packet costs chained messages (collective steps), on virtual time:
#   bench/tail-loss.sh [--loss 0.01] [--bytes 256KiB] [--messages 2000] [--paths 16] [--seed 1] [--tail-copy true]
#                       [--tail-probes 2] [--missing-nak true] [--parity-tail 0]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
./mvnw -q -B -o -pl bench -am -DskipTests compile
"$java_bin" -cp core/target/classes:testkit/target/classes:bench/target/classes io.metaroce.bench.TailLossBench "$@"
