#!/usr/bin/env bash
# Cost of sealing connection-manager messages (spec AUTH-11, AUTH-12): CmAuthCost, CPU ns and bytes allocated per
# CM message (encode, seal, CRC, check, open, parse) on the thread's own CPU clock, unsealed and sealed interleaved
# (the figure to trust on a loaded machine), for a CM_REQ with 4 planes and a CM_DREQ. Text in
# bench/results/cm-auth.txt. The datapath is not involved: CM datagrams are dispatched before the engine (CM-15).
#
# Then the cost of a CM flood from one source (CmFloodCost): CPU ns per flood datagram without and with the per-source
# rate limit (CmRateLimit, 100,000/s and a burst of 8,192 per source), modes interleaved, for unsealed CM_REQs, CM_REQs
# and CM_DREQs sealed under another key, at a flood rate of 1,000,000 datagrams/s; text in bench/results/cm-flood.txt.
#
# Usage: bench/cm-auth.sh [planes] [rounds] [messages per round] [flood rate/s]   e.g. bench/cm-auth.sh 4 9 200000 1000000
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build_benchmarks_jar
echo "== CmAuthCost (CPU time per CM message, modes interleaved)"
"$java_bin" -cp bench/target/benchmarks.jar io.metaroce.bench.CmAuthCost "${1:-4}" "${2:-9}" "${3:-200000}" \
  | tee bench/results/cm-auth.txt
echo
echo "== CmFloodCost (CPU time per flood datagram, without and with the per-source rate limit, interleaved)"
"$java_bin" -cp bench/target/benchmarks.jar io.metaroce.bench.CmFloodCost "${4:-1000000}" "${2:-9}" "${3:-200000}" \
  | tee bench/results/cm-flood.txt
