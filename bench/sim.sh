#!/usr/bin/env bash
# Simulator benchmark (issue 3 "Performance"): the htsim-comparable scenario of io.metaroce.cli.sim.SimBench, a
# k-ary fat-tree (k=8: 128 hosts, k=16: 1,024, k=32: 8,192), 1 plane, 100 Gb/s, 1 us links, 4,150 B data and
# 64 B control packets, 178,450 B buffers, ECN 37-145 KB, a seeded permutation of 2 MB flows, MetaRoCE spraying.
# Each size runs in its own JVM (so peak RSS is that size's); k=8 after two unmeasured k=8 warm-up runs.
#
# Then htsim's all-to-all at 128 hosts (k=8): every ordered pair of hosts on its own connection (16,256), 512 KiB
# each, with the memory per connection (peak RSS minus the RSS before the connections were made, over the flows).
#
# Usage: bench/sim.sh [--k 8,16,32] [--seed S] [--paths P] [--warmups N] [--flow-bytes B] [--payload on|off]
#                     [--trimming on|off] [--set engine.KEY=VALUE]... [--no-alltoall] [--no-build]
#        bench/sim.sh --cold N     # cold start: N rounds of './metaroce --version' and a cold 128-host
#                                  # './metaroce sim bench --k 8 --warmups 0', without and with the AOT cache
# (--payload off, the default, elides payload bytes in the engines as htsim carries none; on moves every byte;
# --trimming on: switches trim what their buffers cannot take, as htsim's UEC switches do, and receivers NAK it, REL-17;
# --set engine.KEY=VALUE: any engine setting, as in an experiment file, e.g. --set engine.paths=64)
# Environment: JAVA_OPTS (default: gc_opts below and -Xmx per size: heap_for), JAVA_HOME.
# Prints, per size: data packets per wall-second, events per second, events per data packet, wall time, peak
# RSS (VmHWM, the whole process), the live heap after the run and flows completed; then one summary table.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ -z "${JAVA_HOME:-}" || ! -x "${JAVA_HOME}/bin/java" ]] && [[ -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"

ks="8"
build=1
alltoall=1
cold=0
pass=()
while (($#)); do
  case "$1" in
    --k) ks="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-alltoall) alltoall=0; shift ;;
    --cold) cold="$2"; shift 2 ;;
    --seed|--paths|--warmups|--flow-bytes|--limit-ms|--payload|--trimming|--set) pass+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

if ((cold > 0)); then
  # Process times of whole commands through the launcher (JVM start, class loading, JIT included), rounds
  # interleaved so that both variants see the same load. The launcher builds and makes its cache first.
  ./metaroce --version >/dev/null
  TIMEFORMAT="%R %U %S"
  declare -A samples=()
  for ((i = 1; i <= cold; i++)); do
    for aot in 0 1; do
      for cmd in version bench; do
        if [[ $cmd == version ]]; then args=(--version); else args=(sim bench --k 8 --warmups 0); fi
        t=$( { time METAROCE_AOT=$aot ./metaroce "${args[@]}" >/dev/null 2>&1; } 2>&1 )
        read -r wall user sys <<< "$t"
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')
        samples["$cmd $aot"]+="$wall $cpu "
        echo "round $i  $cmd  aot=$aot  wall=${wall}s  cpu=${cpu}s"
      done
    done
  done
  echo
  echo "== cold start, $cold rounds (process wall and CPU = user + sys seconds: min / median / max)"
  printf '%-34s %-24s %-24s\n' command wall_s cpu_s
  for cmd in version bench; do
    for aot in 0 1; do
      read -ra v <<< "${samples["$cmd $aot"]}"
      walls=$(for ((j = 0; j < ${#v[@]}; j += 2)); do echo "${v[j]}"; done | sort -g)
      cpus=$(for ((j = 1; j < ${#v[@]}; j += 2)); do echo "${v[j]}"; done | sort -g)
      stats() { awk '{a[NR]=$1} END {printf "%.3f / %.3f / %.3f", a[1], (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[NR]}'; }
      label="./metaroce $([[ $cmd == version ]] && echo --version || echo 'sim bench --k 8')"
      printf '%-34s %-24s %-24s\n' "$label $([[ $aot == 1 ]] && echo '(AOT)' || echo '(no AOT)')" \
        "$(stats <<< "$walls")" "$(stats <<< "$cpus")"
    done
  done
  exit 0
fi

if ((build)); then
  echo "== building core, sim and cli (offline)"
  ./mvnw -o -q -B -pl cli -am -DskipTests compile
fi
# SimBench lives in the cli module (it is also 'metaroce sim bench'); it needs only core and sim besides
cp="core/target/classes:sim/target/classes:cli/target/classes"

# Serial GC with packet buffers (4,154 B arrays) allocated straight in the old generation: the pool of packets
# only grows, so copying buffers through the young generation is pure cost (measured at k=16 on this machine:
# ParallelGC 4.8 s of GC pauses in a 36 s run; this 1.2 s in 13 s).
gc_opts="-XX:+UseSerialGC -XX:PretenureSizeThreshold=4000 -XX:+UseTransparentHugePages"

# Heap per size: enough for the engines' per-QP state and the packets in flight (about 125 per host, each with
# a 4 KB buffer), small enough that the JVM does not grow its heap far past the live set. Transparent huge
# pages cut the TLB misses of a working set of hundreds of MB (measured at k=16: ~23k -> ~30k packets per
# CPU-second). A small young generation (-Xmn): the simulator allocates nothing per packet, so what is allocated
# during a run (the engines' in-flight records, pool packets) lives to the end; a large eden only adds resident
# pages (k=16, two runs side by side each: peak RSS 330 -> 265 and 333 -> 265 MB, CPU +2% and +10%, at load 20-40).
# From k=16 on, -XX:TrimNativeHeapInterval: the JIT compilers' arenas are malloc'ed and freed early in a run, and
# without a trim the C library keeps those pages while the heap grows to its peak later; and a 4 MB young generation
# (a whole k=16 run makes about ten young collections with 8 MB). Together with smaller initial in-flight records
# and pooled buffers cut from shared arrays: k=16 peak RSS 147.7 -> 135.8 MB median (3 alternating runs, load
# 1.5-2.5), CPU unchanged within noise. Not for the short k=8 run, where a trim during the JIT's warm-up may cost
# CPU (6 alternating runs at load 7-8: 90.5k vs 105.6k data packets per CPU-second; inconclusive when repeated per
# flag); the long all-to-all has it.
trim="-XX:TrimNativeHeapInterval=1000"
heap_for() {
  if [[ "$1" == alltoall ]]; then
    echo "-Xmx8g -Xmn32m $trim"   # 16,256 connections: the engines' per-QP state dominates (issue 12)
    return
  fi
  if [[ " ${pass[*]:-} " == *" --payload on "* ]]; then
    case "$1" in 8) echo "-Xmx512m -Xmn16m" ;; 16) echo "-Xmx2g -Xmn16m" ;; *) echo "-Xmx10g -Xmn64m" ;; esac
  else # payload elided: packet buffers are ~100 B
    case "$1" in 8) echo "-Xmx256m -Xmn8m" ;; 16) echo "-Xmx768m -Xmn4m $trim" ;; *) echo "-Xmx4g -Xmn32m $trim" ;; esac
  fi
}

summary=()
IFS=',' read -ra sizes <<< "$ks"
runs=("${sizes[@]}")
((alltoall)) && runs+=(alltoall)
for k in "${runs[@]}"; do
  opts="${JAVA_OPTS:-$gc_opts $(heap_for "$k")}"
  # two k=8 warm-up runs before k=8 (0.5 s runs need a compiled JIT); none before larger sizes, whose peak RSS it
  # would inflate and whose runs are long enough to warm up by themselves (--warmups N overrides)
  warm=(--warmups 2)
  [[ "$k" != 8 ]] && warm=(--warmups 0)
  what=(--k "$k")
  if [[ "$k" == alltoall ]]; then
    what=(--k 8 --workload alltoall)   # htsim's all-to-all: 128 hosts, 512 KiB per ordered pair
    pass_run=()
    for ((j = 0; j < ${#pass[@]}; j += 2)); do
      [[ "${pass[j]}" == --flow-bytes ]] || pass_run+=("${pass[j]}" "${pass[j+1]}")
    done
  else
    pass_run=("${pass[@]}")
  fi
  echo "== ${what[*]}  java $opts"
  log="$(mktemp)"
  # shellcheck disable=SC2086
  "$java_bin" $opts -cp "$cp" io.metaroce.cli.sim.SimBench "${what[@]}" "${warm[@]}" "${pass_run[@]}" > "$log" 2>&1 || true
  cat "$log"
  summary+=("$(grep '^RESULT' "$log" || echo "RESULT k=$k failed")")
  rm -f "$log"
done

echo
echo "== summary (htsim, one core: 128 hosts ~170k pkts/s 0.4 s; 1,024 ~38k 13 s 141 MB; 8,192 ~26k 156 s 2.4 GB;"
echo "   all-to-all at 128 hosts 341 MB, 21 KB per connection)"
printf '%-12s %-6s %12s %12s %9s %9s %9s %12s %9s %9s %9s %s\n' workload hosts pkts/s events/s ev/pkt wall_s cpu_s \
  pkts/cpu-s rss_MB live_MB KB/conn completed
for line in "${summary[@]}"; do
  declare -A f=()
  for kv in ${line#RESULT }; do f["${kv%%=*}"]="${kv#*=}"; done
  printf '%-12s %-6s %12s %12s %9s %9s %9s %12s %9s %9s %9s %s\n' "${f[workload]:-perm}:k${f[k]:-?}" "${f[hosts]:-?}" \
    "${f[pkts_per_s]:-?}" "${f[events_per_s]:-?}" "${f[events_per_pkt]:-?}" "${f[wall_s]:-?}" "${f[cpu_s]:-?}" \
    "${f[pkts_per_cpu_s]:-?}" "${f[rss_mb]:-?}" "${f[live_heap_mb]:-?}" "${f[kb_per_conn]:-?}" "${f[completed]:-?}/${f[flows]:-?}"
  unset f
done
