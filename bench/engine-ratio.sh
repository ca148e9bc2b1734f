#!/usr/bin/env bash
# EngineBench's parts interleaved in one JVM (io.metaroce.bench.EngineRatio): per slice the copy baseline, the
# data floor (2 CRC32Cs + 2 copies, no protocol), one CRC32C, and the engine pair copying and gathering, each for
# the same short time; ratios are taken within each slice, so a load that changes from second to second on shared
# cores moves numerator and denominator together. Prints each slice, then min / median / max.
#
# Usage: bench/engine-ratio.sh [payload] [slices] [sliceMs] [warmupSeconds]    (defaults 4096 30 100 10)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build_benchmarks_jar
echo "== EngineRatio (load $(cut -d' ' -f1-3 /proc/loadavg))"
"$java_bin" -Xmx1g -cp bench/target/benchmarks.jar io.metaroce.bench.EngineRatio "$@"
