#!/usr/bin/env bash
# How long closing many connections takes on the real datapath (loopback, one JVM), serial vs together:
# bench/teardown.sh [QPs=1000] [rounds=3] [waitMs=3000] [QPs sampled for serial with the peer gone=5]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build_benchmarks_jar
"$java_bin" --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar \
  io.metaroce.bench.TeardownBench "$@"
