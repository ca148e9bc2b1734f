#!/usr/bin/env bash
# Soak: write-bw with --verify between two hosts of a namespace test bed, for --minutes, at --loss per hop, with
# one plane taken down for --down s every --flap period, in turn (plane 0, 1, ..., 0, ...). Samples both JVMs' RSS
# and the device counters every 10 s, and both JVMs' live heap (heap used after a forced full GC, jcmd) every
# 30 s, into CSVs; draws RSS over time; ends with a verdict. PASS needs all of:
#   - the data verified (the server compared every byte), 0 error completions, both sides exit 0;
#   - RSS flat after the warm-up: the Theil-Sen slope (median of the slopes between every two samples taken after
#     --warmup s) of each JVM's RSS at most --max-slope MiB/min;
#   - live heap flat after the warm-up: its Theil-Sen slope at most --max-heap-slope MiB/min.
# Why this verdict holds for a 5-minute run: the perf JVMs get a fixed, pre-touched heap, so their RSS only moves
# when something outside the heap grows (JIT code cache, metaspace, thread stacks, malloc'd or direct memory). The
# JIT's growth is a one-time step in the first one to two minutes; a leak is a ramp that never stops. A
# least-squares slope turns a late step into a slope (a 6 MiB step at 140 s reads as 1.7 MiB/min over 90-300 s);
# the median of pairwise slopes ignores a step that falls in the first (or last) ~29% of the window and still
# measures a ramp exactly (--self-test shows both). With --warmup 90 a 5-minute run tolerates steps until ~150 s.
# The limits: 1 MiB/min of RSS is 1.4 GiB a day, a leak that kills a long-running service within days; at
# this soak's rate (the verdict prints it: 13,000-23,000 data packets/s measured on a loaded 2-core machine) it
# is about 1 B per data packet, so a leak of one small object per data packet or per retransmission exceeds it.
# The heap limit (0.5 MiB/min) catches what RSS cannot see inside the fixed heap (a collection growing per packet
# or per event); live heap after a full GC moves only with what is in flight (within 0.7 MiB in the runs
# measured), so its limit can be lower. The forced full GC
# (every 30 s, tens of ms) is also a stall the transport must ride out. The figures are in verdict.txt.
# Needs root (namespaces). Exit code 0 on pass, 1 on fail, 2 on bad usage.
#
#   sudo bench/soak.sh --minutes 5 --loss 0.10 --flap 20s                       (CI runs this)
#   sudo bench/soak.sh --minutes 30 --loss 0.10 --flap 20s --out bench/results/soak
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=5 loss=0.10 flap=20s down=10 planes=4 paths=8 size=65536 warmup=90 max_slope=1.0 max_heap_slope=0.5 out="" mtu=9000 heap=256m
usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; echo "options: --minutes N --loss P --flap Ns|0 --down S --planes N --paths N --size BYTES --warmup S --max-slope MIB_PER_MIN --max-heap-slope MIB_PER_MIN --heap SIZE --out DIR --self-test"; }
# Theil-Sen slope (MiB/min) of columns 2 and 3 of a CSV over the rows taken at or after the warm-up: the median of
# the slopes between every two samples. Prints "server client n" ("nan nan n" under 3 samples).
theil_sen() { # CSV
  local col a b n
  n=$(awk -F, -v w="$warmup" 'NR > 1 && $1 >= w && $2 > 0 && $3 > 0' "$1" | wc -l)
  if [ "$n" -lt 3 ]; then echo "nan nan $n"; return; fi
  for col in 2 3; do
    awk -F, -v w="$warmup" -v c="$col" 'NR > 1 && $1 >= w && $2 > 0 && $3 > 0 { t[n] = $1 / 60; v[n] = $c / 1024; n++ }
      END { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (t[j] > t[i]) print (v[j] - v[i]) / (t[j] - t[i]) }' "$1" \
      | sort -g | awk '{ s[NR] = $1 } END { printf "%.2f\n", NR % 2 ? s[(NR + 1) / 2] : (s[NR / 2] + s[NR / 2 + 1]) / 2 }'
  done | paste -sd' ' | sed "s/\$/ $n/"
}
# --self-test: the slope estimator on made-up RSS series (no root, a second): a warm-up step after --warmup must
# pass, a ramp just over the limit must fail. Shows what a least-squares slope would have said of the same step.
self_test() {
  local d ok=yes step ramp lsq
  d=$(mktemp -d)
  # 300 s, a sample every 10 s; RSS 370 MiB; (a) a 6 MiB step at 140 s (JIT, late warm-up), (b) a 1.2 MiB/min ramp
  awk 'BEGIN { print "t,a,b"; for (t = 10; t <= 300; t += 10) printf "%d,%d,%d\n", t,
    (370 + (t >= 140 ? 6 : 0)) * 1024, (370 + 1.2 * t / 60) * 1024 }' >"$d/s.csv"
  read -r step ramp _ <<<"$(theil_sen "$d/s.csv")"
  lsq=$(awk -F, -v w="$warmup" 'NR > 1 && $1 >= w { n++; x = $1 / 60; y = $2 / 1024; sx += x; sy += y; sxx += x * x; sxy += x * y }
    END { printf "%.2f", (n * sxy - sx * sy) / (n * sxx - sx * sx) }' "$d/s.csv")
  rm -rf "$d"
  echo "soak self-test (warm-up ${warmup} s, limit ${max_slope} MiB/min):"
  echo "  6 MiB step at 140 s: Theil-Sen $step MiB/min (least squares would say $lsq)"
  echo "  1.2 MiB/min ramp:    Theil-Sen $ramp MiB/min"
  awk -v a="$step" -v m="$max_slope" 'BEGIN { exit !(a <= m) }' || { ok=no; echo "  FAIL: the step would fail the soak"; }
  awk -v b="$ramp" -v m="$max_slope" 'BEGIN { exit !(b > m) }' || { ok=no; echo "  FAIL: the ramp would pass the soak"; }
  [ $ok = yes ] && echo "  ok: the step passes, the ramp fails"
  [ $ok = yes ]
}
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;; --loss) loss=$2; shift 2 ;; --flap) flap=$2; shift 2 ;;
    --down) down=$2; shift 2 ;; --planes) planes=$2; shift 2 ;; --paths) paths=$2; shift 2 ;;
    --size) size=$2; shift 2 ;; --warmup) warmup=$2; shift 2 ;; --max-slope) max_slope=$2; shift 2 ;; --max-heap-slope) max_heap_slope=$2; shift 2 ;;
    --out) out=$2; shift 2 ;; --heap) heap=$2; shift 2 ;; -h|--help) usage; exit 0 ;;
    --self-test) selftest_only=1; shift ;;
    *) echo "soak.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -z "${selftest_only:-}" ] || { self_test; exit $?; }
flap_s=${flap%s}
if ! [[ "$minutes" =~ ^[0-9]+(\.[0-9]+)?$ && "$flap_s" =~ ^[0-9]+$ && "$down" =~ ^[0-9]+$ && "$planes" =~ ^[0-9]+$ ]]; then
  echo "soak.sh: --minutes, --flap, --down and --planes take numbers" >&2; exit 2
fi
if [ "$flap_s" -gt 0 ] && [ "$down" -ge "$flap_s" ]; then
  echo "soak.sh: --down ($down s) must be shorter than the --flap period ($flap_s s)" >&2; exit 2
fi
if [ "$(id -u)" != 0 ]; then echo "soak.sh: needs root (network namespaces)" >&2; exit 2; fi
duration=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')
name="sk$(head -c 3 /dev/urandom | od -An -tx1 | tr -d ' \n')"
out=${out:-bench/results/soak/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
csv="$out/samples.csv"
./metaroce --version >/dev/null # builds once, before anything is timed
# A private copy of the build: the launcher would rebuild (minutes) if sources change during the soak, and a jar
# rewritten under a running JVM can crash it.
rt=$(mktemp -d /tmp/metaroce-soak.XXXXXX)
cp -r cli/target/metaroce-cli.jar cli/target/lib "$rt/"
java_bin="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
cat >"$rt/metaroce" <<EOS
#!/usr/bin/env bash
exec "$java_bin" --enable-native-access=ALL-UNNAMED,io.metaroce.net -p "$rt/metaroce-cli.jar:$rt/lib" -m io.metaroce.cli/io.metaroce.cli.Main "\$@"
EOS
chmod +x "$rt/metaroce"
mt="$rt/metaroce"
# The perf JVMs get a fixed, pre-touched heap: their RSS is then flat unless something outside the heap grows
# (native memory, metaspace, thread stacks) or the heap itself fills up (which ends in an error, not a slope).
# TrimNativeHeapInterval: the C heap is trimmed every second, so memory the JVM allocated and freed again is given
# back to the kernel and RSS counts what is in use. Measured 2026-12-02: a C2 compilation took a 5.2 MB arena for a
# moment (NMT "Arena Chunk" +5,197 KB, gone 10 s later) and glibc kept the pages: the client's RSS stepped 4.9 MiB at
# 190 s and stayed there, which the 5-minute slope read as 1.87 MiB/min. A leak (memory still in use) is not trimmed.
perf_jvm="-Xms${heap} -Xmx${heap} -XX:+AlwaysPreTouch -XX:TrimNativeHeapInterval=1000"

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  "$mt" testbed down --name "$name" >/dev/null 2>&1 || true
  rm -rf "$rt"
}
trap cleanup EXIT

echo "soak: test bed $name, 2 hosts x $planes planes, loss $loss per hop, ${duration} s, plane flap every ${flap_s} s (${down} s down), $paths paths, $size B writes; results in $out"
"$mt" testbed up --name "$name" --hosts 2 --planes "$planes" --mtu "$mtu" --loss "$loss" >"$out/testbed.log"
srv_planes=$(seq 0 $((planes - 1)) | awk '{ printf "%s10.%d.0.2", (NR > 1 ? "," : ""), 200 + NR - 1 }')
cli_planes=$(seq 0 $((planes - 1)) | awk '{ printf "%s10.%d.0.1", (NR > 1 ? "," : ""), 200 + NR - 1 }')
common=(write-bw --paths "$paths" -s "$size" --verify --timeout 60 --report-gbits)
ip netns exec "$name-h1" env JAVA_TOOL_OPTIONS="$perf_jvm" "$mt" perf "${common[@]}" --planes "$srv_planes" --stats-file "$out/server-stats.json" \
  >"$out/server.out" 2>"$out/server.err" &
srv=$!; pids+=("$srv")
for _ in $(seq 1 100); do grep -q "listening on" "$out/server.out" 2>/dev/null && break; sleep 0.2; done
ip netns exec "$name-h0" env JAVA_TOOL_OPTIONS="$perf_jvm" "$mt" perf "${common[@]}" 10.200.0.2 --planes "$cli_planes" --duration "$duration" \
  --stats-file "$out/client-stats.json" --record "$out/client-record.yaml" >"$out/client.out" 2>"$out/client.err" &
cli=$!; pids+=("$cli")

# The JVM under each "ip netns exec ... metaroce" (the launcher execs java: same pid, or its child).
jvm_of() { local p=$1 c; c=$(awk '{ print $1 }' "/proc/$p/task/$p/children" 2>/dev/null || true); echo "${c:-$p}"; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
counter() { # FILE NAME: a device counter from a stats file, 0 if absent
  { grep -o "\"$2\": [0-9]*" "$1" 2>/dev/null || true; } | head -1 | awk '{ v = $2 } END { print v + 0 }'
}
heap_kib() { # PID: KiB of heap in use right after a full GC ("garbage-first heap   total reserved 262144K,
  # committed 262144K, used 12345K [...")
  printf 'GC.run\nGC.heap_info\n' >"$rt/jcmd.txt"
  "${java_bin%/java}/jcmd" "$1" -f "$rt/jcmd.txt" 2>>"$out/jcmd.err" | tee -a "$out/jcmd.log" \
    | awk '/heap .*total/ { for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K.*/, "", v); print v; exit } }' \
    || true # the JVM may have just exited: no sample (set -e must not end the soak here)
}
failed_paths() { { grep -o '"state": "FAILED"' "$1" 2>/dev/null || true; } | wc -l; }

heap_csv="$out/heap.csv"
echo "t_s,server_heap_kib,client_heap_kib" >"$heap_csv"
echo "t_s,server_rss_kib,client_rss_kib,retransmits,timeouts,path_failovers,path_readmissions,error_completions,failed_paths,plane_down" >"$csv"
# Plane P down or up: what "metaroce testbed plane" does (every switch port of the plane's bridge down or up),
# with ip directly: a JVM per flip took 5-20 s on a loaded machine and stretched the 10 s outages to 14-38 s.
plane_ports() { # PLANE up|down
  local port
  for port in $(ip -n "$name-sw$1" -o link show master br0 | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
    ip -n "$name-sw$1" link set "$port" "$2" || true
  done
}
(
  # the flapper: plane k down for $down s at the start of period k, then up; in turn
  [ "$flap_s" -gt 0 ] || exit 0
  k=0
  while kill -0 "$cli" 2>/dev/null; do
    sleep "$((flap_s - down))"
    p=$((k % planes))
    plane_ports "$p" down
    echo "$(date +%s) $p down" >>"$out/flaps.log"
    sleep "$down"
    plane_ports "$p" up
    echo "$(date +%s) $p up" >>"$out/flaps.log"
    k=$((k + 1))
  done
) &
pids+=("$!")

t0=$(date +%s)
next=10
while kill -0 "$cli" 2>/dev/null; do
  sleep 1
  now=$(( $(date +%s) - t0 ))
  if [ "$now" -ge "$next" ]; then
    next=$((next + 10))
    sj=$(jvm_of "$srv"); cj=$(jvm_of "$cli")
    if [ $(( (next - 10) % 30 )) = 0 ]; then
      hs=$(heap_kib "$sj"); hc=$(heap_kib "$cj")
      [ -n "$hs" ] && [ -n "$hc" ] && echo "$now,$hs,$hc" >>"$heap_csv"
    fi
    down_now=$(awk 'END { if ($3 == "down") print $2; else print "-" }' "$out/flaps.log" 2>/dev/null || echo -)
    cs="$out/client-stats.json"
    line="$now,$(rss_kib "$sj"),$(rss_kib "$cj"),$(counter "$cs" RETRANSMITS),$(counter "$cs" TIMEOUTS),$(counter "$cs" PATH_FAILOVERS),$(counter "$cs" PATH_READMISSIONS),$(counter "$cs" ERROR_COMPLETIONS),$(failed_paths "$cs"),${down_now:--}"
    echo "$line" >>"$csv"
    printf 'soak: %4d s  server RSS %6d MiB  client RSS %6d MiB  retx %s  timeouts %s  failovers %s  failed paths now %s  plane down %s\n' \
      "$now" $(( $(rss_kib "$sj") / 1024 )) $(( $(rss_kib "$cj") / 1024 )) "$(counter "$cs" RETRANSMITS)" \
      "$(counter "$cs" TIMEOUTS)" "$(counter "$cs" PATH_FAILOVERS)" "$(failed_paths "$cs")" "${down_now:--}"
  fi
done
set +e
wait "$cli"; cli_rc=$?
wait "$srv"; srv_rc=$?
set -e

# ---------------------------------------------------------------- verdict
verified=no; grep -q "data verified" "$out/server.out" && verified=yes
errors=$(awk -F, 'NR > 1 && $8 != "" { e = $8 } END { print e + 0 }' "$csv")
slopes=$(theil_sen "$csv")
heap_slopes=$(theil_sen "$heap_csv")
read -r heap_srv heap_cli nheap <<<"$heap_slopes"
read -r slope_srv slope_cli nslope <<<"$slopes"
# RSS over time, one row per sample: the eye sees a leak faster than a slope
awk -F, 'NR > 1 && $2 > 0 { printf "  %5d s  server %5d MiB %-40s client %5d MiB %s\n", $1, $2 / 1024,
  substr("########################################", 1, $2 / 1024 / 25), $3 / 1024,
  substr("########################################", 1, $3 / 1024 / 25) }' "$csv" >"$out/rss.txt"
cat "$out/rss.txt"
pass=yes; why=""
[ "$cli_rc" = 0 ] || { pass=no; why="$why client exit $cli_rc ($(tail -1 "$out/client.err"));"; }
[ "$srv_rc" = 0 ] || { pass=no; why="$why server exit $srv_rc ($(tail -1 "$out/server.err"));"; }
[ "$verified" = yes ] || { pass=no; why="$why data not verified;"; }
[ "$errors" = 0 ] || { pass=no; why="$why $errors error completions;"; }
if [ "$slope_srv" = nan ]; then
  pass=no; why="$why only $nslope RSS samples after the ${warmup} s warm-up;"
else
  awk -v a="$slope_srv" -v b="$slope_cli" -v m="$max_slope" 'BEGIN { exit !(a <= m && b <= m) }' \
    || { pass=no; why="$why RSS grows (server $slope_srv, client $slope_cli MiB/min > $max_slope);"; }
fi
if [ "$heap_srv" = nan ]; then
  pass=no; why="$why only $nheap live-heap samples after the ${warmup} s warm-up (jcmd failed: $out/jcmd.err);"
else
  awk -v a="$heap_srv" -v b="$heap_cli" -v m="$max_heap_slope" 'BEGIN { exit !(a <= m && b <= m) }' \
    || { pass=no; why="$why live heap grows (server $heap_srv, client $heap_cli MiB/min > $max_heap_slope);"; }
fi
data_pkts=$(counter "$out/client-stats.json" TX_DATA_PACKETS)
rate=$(awk -v p="$data_pkts" -v d="$duration" 'BEGIN { printf "%.0f", p / d }')
per_pkt=$(awk -v r="$rate" -v m="$max_slope" 'BEGIN { if (r > 0) printf "%.1f", m * 1048576 / 60 / r; else print "n/a" }')
{
  echo "soak verdict: $([ $pass = yes ] && echo PASS || echo FAIL)"
  echo "  duration ${duration} s, loss $loss per hop, flap every ${flap_s} s (${down} s down), $planes planes, $paths paths"
  echo "  data verified: $verified; error completions: $errors; exit codes: client $cli_rc, server $srv_rc"
  echo "  RSS slope after ${warmup} s (Theil-Sen): server $slope_srv MiB/min, client $slope_cli MiB/min ($nslope samples; limit $max_slope)"
  echo "  live heap slope after ${warmup} s (Theil-Sen): server $heap_srv MiB/min, client $heap_cli MiB/min ($nheap samples; limit $max_heap_slope)"
  echo "  $data_pkts data packets sent, $rate/s: the RSS limit is $per_pkt B per data packet at this rate"
  grep -E "^ *[0-9]+ +[0-9]+ +[0-9.]+ " "$out/client.out" | tail -1 | sed 's/^/  client bw row: /' || true
  [ $pass = yes ] || echo "  why:$why"
  echo "  files: $out/{samples.csv,heap.csv,rss.txt,flaps.log,client.out,server.out,*-stats.json}"
} | tee "$out/verdict.txt"
[ $pass = yes ]
