#!/usr/bin/env bash
# Real-datapath benchmark on the namespace test bed (needs root, ip, tc, nft, iperf3, sockperf).
# Every comparison is measured in the same run, on the same links:
#   1. single-QP write-bw vs iperf3 TCP single stream, offloads on (1 plane, MTU 9000), --rounds interleaved
#      rounds (TCP, ours, TCP, ours, ...; median reported), data verified; datagrams per sendmmsg call and GSO
#      segments per message of our runs; the udpcap ceiling (C, sendmmsg with and without GSO/GRO) on the path
#   2. the same at 1% and 10% random loss, offloads off (both transports see the same drop rule)
#   3. 4 planes each limited to R by htb: aggregate vs 4R, and with one plane down vs 3R
#   4. write-lat 8-byte percentiles (25..99.99) vs sockperf ping-pong (UDP), side by side
#   5. many QPs on one device vs 1 QP, --rounds interleaved rounds (1 QP, N QPs, ...): goodput ratio per pair,
#      error completions, health and tail-loss probes per second, the tail past the posting window and memory
#      per QP (min/median/max)
# Usage: bench/net.sh [--quick] [--rate 2gbit] [--qps 4000] [--rounds 3] [--only 1,3] [--limit S] [--omit S]
#                     [-- EXTRA PERF FLAGS]
#   --omit S: seconds every timed run (iperf3 -O, perf --omit) runs before it measures (default 3, 2 with --quick)
#   (results and records in bench/results/net/; EXTRA PERF FLAGS go to both ends of every metaroce run)
# Every wait is bounded: a server gets --limit seconds (default 60) to print "listening on" and to end after its
# client, a client the run's duration plus --limit (plus 1 s per 20 QPs); a side that overruns is stopped, the
# run reports no figure and one line on stderr says which side and where its log is.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
quick=0; rate=2gbit; qps=4000; secs=5; omit=""; only=""; rounds=3; limit=60; extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; secs=2; qps=500 ;;
    --rate) rate="$2"; shift ;;
    --qps) qps="$2"; shift ;;
    --only) only="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --omit) omit="$2"; shift ;;
    --limit) limit="$2"; shift ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
# every timed run (iperf3's and ours alike) first runs --omit seconds that no figure counts (iperf3 -O, perf --omit):
# our JVM compiles its datapath in the first 2-4 s of a run on these 2 cores, the kernel's TCP needs no warm-up
[ -n "$omit" ] || { [ "$quick" = 1 ] && omit=2 || omit=3; }
[ "$(id -u)" = 0 ] || { echo "bench/net.sh needs root (network namespaces)" >&2; exit 2; }
for t in ip tc nft iperf3 sockperf cc; do
  command -v "$t" >/dev/null || { echo "missing $t: apt-get install -y iproute2 nftables iperf3 sockperf gcc" >&2; exit 2; }
done
out="$root/bench/results/net"; mkdir -p "$out"
tb=nb$$
mr() { "$root/metaroce" "$@"; }
cleanup() { local j; for j in $(jobs -p); do kill "$j" 2>/dev/null || true; done; mr testbed down --name "$tb" >/dev/null 2>&1 || true; }
trap cleanup EXIT
want() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }
say() { printf '\n== %s\n' "$*"; }
addr() { echo "10.$((200 + $2)).0.$(( $1 + 1 ))"; }          # host, plane -> address (test bed scheme)
planes() { local h=$1 n=$2 l=""; for ((p = 0; p < n; p++)); do l="$l${l:+,}$(addr "$h" $p)"; done; echo "$l"; }
ex() { local h=$1; shift; ip netns exec "$tb-h$h" "$@"; }
# ex with a time limit: tex SECONDS HOST CMD...; exit 124 when the limit stopped it
tex() { local t=$1 h=$2; shift 2; timeout -k 5 "$t" ip netns exec "$tb-h$h" "$@"; }
fail() { echo "bench/net.sh: $*" >&2; }
# waits up to $3 s for process $1 to print "listening on" into log $2 (a server ready for its client)
await_listening() {
  local pid=$1 log=$2 t=$3 i
  for ((i = 0; i < t * 10; i++)); do
    grep -q "listening on" "$log" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { fail "the server exited before listening (see $log)"; return 1; }
    sleep 0.1
  done
  fail "the server did not listen within $t s (see $log); stopped it"; kill "$pid" 2>/dev/null; return 1
}
# waits up to $2 s for process $1 ($3 names it) to end; then stops it with one line on stderr
reap() {
  local pid=$1 t=$2 what=$3 i
  for ((i = 0; i < t * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  fail "$what did not end within $t s; stopped it"
  kill "$pid" 2>/dev/null; sleep 2; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
}
metric() { awk -v k="$2:" '$1 == k {print $2}' "$1" 2>/dev/null; }
median() { python3 -c 'import sys, statistics; v=[float(x) for x in sys.argv[1:] if x]; print("%.3f" % statistics.median(v) if v else "")' "$@"; }
span() { python3 -c 'import sys; v=sorted(float(x) for x in sys.argv[1:] if x); print("%.2f-%.2f" % (v[0], v[-1]) if v else "")' "$@"; }

mr --version >/dev/null   # build once, before any timing
results=()
row() { results+=("$(printf '%-58s %s' "$1" "$2")"); printf '   %-58s %s\n' "$1" "$2"; }

# iperf3 single TCP stream from host 0 to host 1 on plane 0, in Gb/s
iperf() {
  local pf="$out/iperf3.pid"; rm -f "$pf"
  ex 1 iperf3 -s -1 -D -B "$(addr 1 0)" -I "$pf" >/dev/null 2>&1; sleep 0.5
  tex $((secs + omit + limit)) 0 iperf3 -c "$(addr 1 0)" -B "$(addr 0 0)" -t "$secs" -O "$omit" -J 2>/dev/null \
    | python3 -c 'import json,sys
try: print("%.3f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9))
except Exception: print("bench/net.sh: iperf3 gave no result", file=sys.stderr)' || true
  [ -s "$pf" ] && reap "$(cat "$pf")" "$limit" "the iperf3 server"
  return 0
}

# our write-bw, one QP, from host 0 to host 1 over n planes, in Gb/s (record in $out/$1.yaml)
ours() {
  local name=$1 n=$2; shift 2
  rm -f "$out/$name.yaml" # a run that writes no record reports nothing, not the last run's figure
  ex 1 "$root/metaroce" perf write-bw -p 4793 --planes "$(planes 1 "$n")" --paths $((n * 4)) --payload-mtu 8192 \
      -s "${SIZE:-1048576}" -t "${TXD:-16}" --omit "$omit" --stats "$@" ${extra[@]+"${extra[@]}"} > "$out/$name.server.log" 2>&1 &
  local spid=$! rc=0
  # the client starts once the server listens (a fixed sleep raced a slow server start under load)
  await_listening "$spid" "$out/$name.server.log" "$limit" || { reap "$spid" 5 "the $name server"; return 0; }
  local lim=$((secs + omit + limit + ${QPS:-1} / 20))
  tex "$lim" 0 "$root/metaroce" perf write-bw "$(addr 1 0)" -p 4793 --planes "$(planes 0 "$n")" --paths $((n * 4)) \
      --payload-mtu 8192 -s "${SIZE:-1048576}" -t "${TXD:-16}" -D "$secs" --omit "$omit" --report-gbits --world testbed --name "$name" \
      --record "$out/$name.yaml" --stats "$@" ${extra[@]+"${extra[@]}"} > "$out/$name.client.log" 2>&1 || rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    fail "the $name client did not finish within $lim s; stopped it (see $out/$name.client.log)"
  elif [ "$rc" != 0 ]; then
    fail "the $name client failed (exit $rc): $(grep -m1 -i 'error' "$out/$name.client.log" || tail -1 "$out/$name.client.log")"
  fi
  reap "$spid" $((limit + ${QPS:-1} / 20)) "the $name server (see $out/$name.server.log)"
  metric "$out/$name.yaml" goodput_gbps
}

# the kernel's UDP drops in both hosts' namespaces (receive buffer full, send buffer full, memory, bad input): a
# run's RTOs with this delta at 0 were not caused by lost datagrams (scheduling stalls), with it above 0 they may be
kdrops() {
  local h t=0 v
  for h in 0 1; do
    v=$(ex "$h" nstat -az UdpRcvbufErrors UdpSndbufErrors UdpInErrors UdpMemErrors 2>/dev/null \
        | awk '$1 ~ /^Udp/ {s += $2} END {print s + 0}')
    t=$((t + v))
  done
  echo "$t"
}

ratio() { python3 -c "import sys; a,b=float(sys.argv[1] or 0),float(sys.argv[2] or 0); print('%.2f' % (a/b if b else 0))" "$1" "$2"; }

# udpcap (a C sender/receiver: the kernel's UDP ceiling) on plane 0 from host 0 to host 1, in Gb/s; $1 = 1 for
# UDP GSO on send and GRO on receive, 0 for 32 plain datagrams per sendmmsg
udpcap() {
  ex 1 "$out/udpcap" r "$(addr 1 0)" 8192 "$1" "$secs" > "$out/udpcap-$1.log" 2>&1 &
  local rp=$!; sleep 0.5
  tex $((secs + limit)) 0 "$out/udpcap" s "$(addr 1 0)" 8192 "$1" "$secs" >/dev/null 2>&1 || true
  reap "$rp" $((secs + limit)) "the udpcap receiver"
  awk '/^recv/ {print $2}' "$out/udpcap-$1.log"
}

if want 1; then
say "1. single QP vs TCP, 1 plane, MTU 9000, offloads on ($rounds interleaved rounds)"
cc -O2 -o "$out/udpcap" "$root/tools/udpcap/udpcap.c"
mr testbed up --name "$tb" --hosts 2 --planes 1 --mtu 9000 --offloads on >/dev/null
cap0=$(udpcap 0); cap1=$(udpcap 1)
tcps=(); uss=(); calls=(); segs=(); verified=0; rto=0; fo=0; retx=0; data=0; kd=0; rtom=0; fom=0; retxm=0
for ((k = 1; k <= rounds; k++)); do
  t=$(iperf); d0=$(kdrops); u=$(ours "bw-lossless-$k" 1 --verify); d1=$(kdrops); kd=$((kd + d1 - d0))
  tcps+=("$t"); uss+=("$u")
  calls+=("$(metric "$out/bw-lossless-$k.yaml" datagrams_per_sendmmsg)")
  segs+=("$(metric "$out/bw-lossless-$k.yaml" gso_segments_per_message)")
  grep -q "data verified" "$out/bw-lossless-$k.server.log" && verified=$((verified + 1))
  rto=$((rto + $(metric "$out/bw-lossless-$k.yaml" timeouts || echo 0)))
  fo=$((fo + $(metric "$out/bw-lossless-$k.yaml" path_failovers || echo 0)))
  retx=$((retx + $(metric "$out/bw-lossless-$k.yaml" retransmits || echo 0)))
  data=$((data + $(metric "$out/bw-lossless-$k.yaml" tx_data_packets || echo 0)))
  # the same counters for the measured part alone (after --omit's warm-up; perf records both)
  v=$(metric "$out/bw-lossless-$k.yaml" timeouts_after_omit); rtom=$((rtom + ${v:-0}))
  v=$(metric "$out/bw-lossless-$k.yaml" path_failovers_after_omit); fom=$((fom + ${v:-0}))
  v=$(metric "$out/bw-lossless-$k.yaml" retransmits_after_omit); retxm=$((retxm + ${v:-0}))
  printf '   round %d: TCP %s Gb/s, metaroce %s Gb/s (%s datagrams per sendmmsg, %s per GSO message; RTOs %s, %s after the warm-up; kernel UDP drops %s)\n' \
      "$k" "$t" "$u" "${calls[-1]}" "${segs[-1]}" "$(metric "$out/bw-lossless-$k.yaml" timeouts)" \
      "$(metric "$out/bw-lossless-$k.yaml" timeouts_after_omit)" "$((d1 - d0))"
done
tcp0=$(median "${tcps[@]}"); us0=$(median "${uss[@]}")
row "udpcap ceiling, C: 32 datagrams per sendmmsg / GSO+GRO (Gb/s)" "${cap0:-?} / ${cap1:-?}"
row "iperf3 TCP single stream, median (min-max) (Gb/s)" "$tcp0 ($(span "${tcps[@]}"))"
row "metaroce write-bw 1 QP, median (min-max) (Gb/s)" "$us0 ($(span "${uss[@]}"))"
row "ratio metaroce/TCP, medians (target >= 1.0)" "$(ratio "$us0" "$tcp0")"
row "metaroce datagrams per sendmmsg / per GSO message (median)" "$(median "${calls[@]}") / $(median "${segs[@]}")"
row "metaroce data verified / RTOs / failovers / retx of data" "$verified of $rounds / $rto / $fo / $retx of $data"
row "  the same after the omitted warm-up: RTOs / failovers / retx" "$rtom / $fom / $retxm"
row "kernel UDP drops in both hosts during our runs (nstat)" "$kd"
row "metaroce rates in force" "$(sed -n 's/^ Rates *: //p' "$out/bw-lossless-1.client.log")"
mr testbed down --name "$tb" >/dev/null
fi

if want 2; then
say "2. random loss, offloads off (each dropped packet is one frame)"
mr testbed up --name "$tb" --hosts 2 --planes 1 --mtu 9000 --offloads off >/dev/null
tcpb=$(iperf); usb=$(ours bw-offloads-off 1)
for loss in 0.01 0.10; do
  mr testbed loss --name "$tb" "$loss" >/dev/null
  t=$(iperf); u=$(ours "bw-loss-$loss" 1)
  row "loss $loss: TCP (Gb/s, x of its lossless $tcpb)" "$t ($(ratio "$t" "$tcpb"))"
  row "loss $loss: metaroce (Gb/s, x of its lossless $usb)" "$u ($(ratio "$u" "$usb"))"
done
row "targets" ">= 0.86 of lossless and above TCP at 1%; >= 0.5 at 10%"
mr testbed down --name "$tb" >/dev/null
fi

if want 3; then
say "3. four planes, each limited to $rate by htb"
mr testbed up --name "$tb" --hosts 2 --planes 4 --mtu 9000 --rate "$rate" --buffer 1MiB >/dev/null
r=$(python3 -c "s='$rate'.lower(); m={'g':1e9,'m':1e6,'k':1e3}; print(float(s.rstrip('bit')[:-1])*m[s.rstrip('bit')[-1]]/1e9 if s.rstrip('bit')[-1] in m else float(s)/1e9)")
agg=$(ours planes-4 4)
row "aggregate over 4 planes (Gb/s; R = $r)" "$agg ($(ratio "$agg" "$r") R, target >= 3.6 R)"
( sleep $((omit + 2)); mr testbed plane --name "$tb" --plane 3 down >/dev/null ) &   # ~1 s into the measured part (JVM start and connection first)
down=$(ours planes-3-of-4 4)
row "one plane down (Gb/s)" "$down ($(ratio "$down" "$r") R, target >= 2.7 R)"
mr testbed down --name "$tb" >/dev/null
fi

if want 4; then
say "4. 8-byte latency vs sockperf ping-pong (UDP), 1 plane"
mr testbed up --name "$tb" --hosts 2 --planes 1 --mtu 9000 --offloads on >/dev/null
ex 1 sockperf server -i "$(addr 1 0)" -p 11111 >/dev/null 2>&1 &
sp=$!; sleep 1
tex $((secs + limit)) 0 sockperf ping-pong -i "$(addr 1 0)" -p 11111 -m 14 -t "$secs" > "$out/sockperf.log" 2>&1 \
  || fail "sockperf ping-pong failed or overran $((secs + limit)) s (see $out/sockperf.log)"
kill "$sp" 2>/dev/null || true; reap "$sp" 5 "the sockperf server"
sp50=$(awk '/percentile 50.000/ {print $NF}' "$out/sockperf.log" | tail -1)
sp99=$(awk '/percentile 99.000/ {print $NF}' "$out/sockperf.log" | tail -1)
ex 1 "$root/metaroce" perf write-lat -p 4793 --planes "$(addr 1 0)" -n 20000 ${extra[@]+"${extra[@]}"} \
    > "$out/lat.server.log" 2>&1 &
lp=$!
if await_listening "$lp" "$out/lat.server.log" "$limit"; then
  tex $((limit * 3)) 0 "$root/metaroce" perf write-lat "$(addr 1 0)" -p 4793 --planes "$(addr 0 0)" -n 20000 \
      --world testbed --record "$out/lat.yaml" ${extra[@]+"${extra[@]}"} > "$out/lat.client.log" 2>&1 \
    || fail "the write-lat client failed or overran $((limit * 3)) s (see $out/lat.client.log)"
fi
reap "$lp" "$limit" "the write-lat server (see $out/lat.server.log)"
printf '   %-10s %12s %12s %8s\n' "percentile" "sockperf us" "metaroce us" "ratio" | tee "$out/lat-histogram.txt"
for p in 25 50 75 90 99 99.9 99.99; do
  sp=$(awk -v p="$p" 'index($0, "percentile " sprintf("%.3f", p) " ") {print $NF}' "$out/sockperf.log" | tail -1)
  key="lat_p$(echo "$p" | tr -d .)_us"
  us=$(metric "$out/lat.yaml" "$key")
  printf '   %-10s %12s %12s %8s\n' "p$p" "${sp:-?}" "${us:-?}" "$(ratio "${us:-0}" "${sp:-0}")" | tee -a "$out/lat-histogram.txt"
done
row "sockperf ping-pong one-way p50 / p99 (us)" "${sp50:-?} / ${sp99:-?}"
row "metaroce write-lat one-way p50 / p99 (us)" "$(metric "$out/lat.yaml" lat_p50_us) / $(metric "$out/lat.yaml" lat_p99_us)"
row "p50 ratio metaroce/sockperf (target <= 1.3)" "$(ratio "$(metric "$out/lat.yaml" lat_p50_us)" "${sp50:-0}")"
row "p99 ratio metaroce/sockperf (target <= 3)" "$(ratio "$(metric "$out/lat.yaml" lat_p99_us)" "${sp99:-0}")"
mr testbed down --name "$tb" >/dev/null
fi

if want 5; then
say "5. $qps QPs on one device vs 1 QP ($rounds interleaved rounds: 1 QP, $qps QPs, 1 QP, ...)"
mr testbed up --name "$tb" --hosts 2 --planes 1 --mtu 9000 --offloads on >/dev/null
for ((k = 1; k <= rounds; k++)); do
  one=$(SIZE=65536 TXD=2 ours "qps-1-r$k" 1 -q 1)
  many=$(SIZE=65536 TXD=2 QPS=$qps ours "qps-$qps-r$k" 1 -q "$qps")
  printf '   round %d: 1 QP %s Gb/s, %d QPs %s Gb/s\n' "$k" "${one:-none}" "$qps" "${many:-none}"
done
python3 "$root/bench/net_qps_summary.py" "$out" "$qps" "$rounds" "$secs" | tee "$out/qps-summary.txt" || true
row "goodput ratio $qps QPs / 1 QP, min / median / max" "$(awk '/goodput ratio/ {print $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF}' "$out/qps-summary.txt")"
mr testbed down --name "$tb" >/dev/null
fi

say "summary (records and logs in $out)"
printf '%s\n' "${results[@]}" | tee "$out/summary.txt"
