#!/usr/bin/env bash
# Fuzzes every Jazzer target for a while, one JVM per target (Jazzer fuzzes one @FuzzTest per run), and prints
# each target's executions per second and corpus size. A finding fails the run; its input is kept under
# fuzz/src/test/resources/io/metaroce/fuzz/<Class>Inputs/<method>/ (replayed by every ./mvnw verify from then on)
# and a reproducer under fuzz/target/jazzer-reproducers/.
#
#   fuzz/run.sh                      # 10 s per target (what CI runs)
#   fuzz/run.sh --seconds 600        # a long run: 10 minutes per target
#   fuzz/run.sh --seconds 3600 --target EngineInputFuzzTest
#
# The corpus a run grows lives in fuzz/.cifuzz-corpus/ (not committed); copy new inputs worth keeping into the
# Inputs directory above.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=10
targets=(PacketParserFuzzTest EngineInputFuzzTest CmParserFuzzTest ExperimentFileFuzzTest ScriptParserFuzzTest
  AuthForgeryFuzzTest CmForgeryFuzzTest KeyUpdateForgeryFuzzTest)
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --target) targets=("$2"); shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fuzz/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export PATH="$JAVA_HOME/bin:$PATH"
mkdir -p fuzz/target
rm -rf fuzz/target/fuzz-reports
status=0
if [ ${#targets[@]} -gt 1 ]; then
  # every target in one Maven run (profile fuzz: one JVM per target); -DskipTests skips the other modules' tests
  ./mvnw -B -pl fuzz -am test -Pfuzz -DskipTests -Dfuzz.seconds="$seconds" >fuzz/target/fuzz-all.log 2>&1 || true
  for t in "${targets[@]}"; do
    # the executions run one after another: each target's section of the log starts at its "Running" line
    awk -v t="io.metaroce.fuzz.$t" '/Running io\.metaroce\.fuzz\./ { on = index($0, t) > 0 } on' \
      fuzz/target/fuzz-all.log >"fuzz/target/fuzz-$t.log"
  done
else
  JAZZER_FUZZ=1 ./mvnw -B -pl fuzz -am test -Dtest="${targets[0]}" -Djazzer.max_duration="${seconds}s" \
    -Djazzer.internal.arg.0=fuzz -Djazzer.internal.arg.1=-max_len=4096 -Djazzer.internal.arg.2=-len_control=0 \
    -Dsurefire.failIfNoSpecifiedTests=false >"fuzz/target/fuzz-${targets[0]}.log" 2>&1 || true
fi
printf '%-24s %10s %12s %10s %s\n' target seconds "execs/s" corpus result
for t in "${targets[@]}"; do
  log="fuzz/target/fuzz-$t.log"
  # libFuzzer's final line: "Done N runs in S second(s)"; corpus from the last status line
  runs=$(grep -oE "Done [0-9]+ runs in [0-9]+ second" "$log" | tail -1 | awk '{ print $2 }')
  secs=$(grep -oE "Done [0-9]+ runs in [0-9]+ second" "$log" | tail -1 | awk '{ print $5 }')
  corpus=$(grep -oE "corp: [0-9]+/[0-9]+[a-zA-Z]*" "$log" | tail -1 | awk '{ print $2 }')
  rate=$(awk -v r="${runs:-0}" -v s="${secs:-0}" 'BEGIN { if (s > 0) printf "%d", r / s; else print "-" }')
  result=ok
  if [ -z "$runs" ] || grep -qE "FuzzTestFinding|== Java Exception|Tests run: [0-9]+, Failures: [1-9]|Errors: [1-9]" "$log"; then
    result="FINDING or error (see $log)"
    status=1
  fi
  printf '%-24s %10s %12s %10s %s\n' "$t" "${secs:--}" "$rate" "${corpus:--}" "$result"
done
exit $status
