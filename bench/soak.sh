#!/usr/bin/env bash
# Soak: write-bw with --verify between two hosts of a namespace test bed, for --minutes, at --loss per hop, with
# one plane taken down for 10 s every --flap period, in turn (plane 0, 1, ..., 0, ...). Samples both JVMs' RSS and
# the device counters every 10 s into a CSV, draws RSS over time, and ends with a verdict:
#   data verified (the server compared every byte), 0 error completions, both sides exit 0, and the RSS of both
#   JVMs flat after the warm-up (least-squares slope over the samples after --warmup, at most --max-slope MiB/min).
# Needs root (namespaces). Exit code 0 on pass, 1 on fail, 2 on bad usage.
#
#   sudo bench/soak.sh --minutes 5 --loss 0.10 --flap 20s
#   sudo bench/soak.sh --minutes 30 --loss 0.10 --flap 20s --out bench/results/soak
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=5 loss=0.10 flap=20s down=10 planes=4 paths=8 size=65536 warmup=60 max_slope=1.0 out="" mtu=9000 heap=256m
usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; echo "options: --minutes N --loss P --flap Ns|0 --down S --planes N --paths N --size BYTES --warmup S --max-slope MIB_PER_MIN --heap SIZE --out DIR"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;; --loss) loss=$2; shift 2 ;; --flap) flap=$2; shift 2 ;;
    --down) down=$2; shift 2 ;; --planes) planes=$2; shift 2 ;; --paths) paths=$2; shift 2 ;;
    --size) size=$2; shift 2 ;; --warmup) warmup=$2; shift 2 ;; --max-slope) max_slope=$2; shift 2 ;;
    --out) out=$2; shift 2 ;; --heap) heap=$2; shift 2 ;; -h|--help) usage; exit 0 ;;
    *) echo "soak.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
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
perf_jvm="-Xms${heap} -Xmx${heap} -XX:+AlwaysPreTouch"

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
jvm_of() { local p=$1 c; c=$(pgrep -P "$p" java 2>/dev/null | head -1 || true); echo "${c:-$p}"; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
counter() { # FILE NAME: a device counter from a stats file, 0 if absent
  { grep -o "\"$2\": [0-9]*" "$1" 2>/dev/null || true; } | head -1 | awk '{ v = $2 } END { print v + 0 }'
}
failed_paths() { { grep -o '"state": "FAILED"' "$1" 2>/dev/null || true; } | wc -l; }

echo "t_s,server_rss_kib,client_rss_kib,retransmits,timeouts,path_failovers,path_readmissions,error_completions,failed_paths,plane_down" >"$csv"
(
  # the flapper: plane k down for $down s at the start of period k, then up; in turn
  [ "$flap_s" -gt 0 ] || exit 0
  k=0
  while kill -0 "$cli" 2>/dev/null; do
    sleep "$((flap_s - down))"
    p=$((k % planes))
    echo "$(date +%s) $p down" >>"$out/flaps.log"
    "$mt" testbed plane --name "$name" --plane "$p" down >/dev/null 2>&1 || true
    sleep "$down"
    "$mt" testbed plane --name "$name" --plane "$p" up >/dev/null 2>&1 || true
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
slopes=$(awk -F, -v w="$warmup" 'NR > 1 && $1 >= w && $2 > 0 && $3 > 0 {
    n++; x = $1 / 60; sx += x; sxx += x * x; s1 += $2 / 1024; s2 += $3 / 1024; sx1 += x * $2 / 1024; sx2 += x * $3 / 1024 }
  END { if (n < 3) { print "nan nan " n; exit } d = n * sxx - sx * sx;
        printf "%.2f %.2f %d", (n * sx1 - sx * s1) / d, (n * sx2 - sx * s2) / d, n }' "$csv")
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
{
  echo "soak verdict: $([ $pass = yes ] && echo PASS || echo FAIL)"
  echo "  duration ${duration} s, loss $loss per hop, flap every ${flap_s} s (${down} s down), $planes planes, $paths paths"
  echo "  data verified: $verified; error completions: $errors; exit codes: client $cli_rc, server $srv_rc"
  echo "  RSS slope after ${warmup} s: server $slope_srv MiB/min, client $slope_cli MiB/min ($nslope samples; limit $max_slope)"
  grep -E "^ *[0-9]+ +[0-9]+ +[0-9.]+ " "$out/client.out" | tail -1 | sed 's/^/  client bw row: /' || true
  [ $pass = yes ] || echo "  why:$why"
  echo "  files: $out/{samples.csv,rss.txt,flaps.log,client.out,server.out,*-stats.json}"
} | tee "$out/verdict.txt"
[ $pass = yes ]
