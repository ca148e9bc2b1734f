#!/usr/bin/env bash
# write-bw on the test bed with packet authentication off, tag (AES-128-GCM, payload in clear) and encrypt
# (docs/spec/10-auth.md), in interleaved rounds (off tag encrypt off tag encrypt ...), data verified by the server;
# prints the goodput of each run and the min/median/max per mode with the ratio of medians to "off".
# Needs root (network namespaces).
#
#   sudo bench/auth-wire.sh [--rounds 3] [--seconds 5] [--size 1048576]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=3 secs=5 size=1048576
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;; --seconds) secs=$2; shift 2 ;; --size) size=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "auth-wire.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" != 0 ]; then echo "auth-wire.sh: needs root (network namespaces)" >&2; exit 2; fi
tb="aw$(head -c 3 /dev/urandom | od -An -tx1 | tr -d ' \n')"
out=$(mktemp -d /tmp/metaroce-auth-wire.XXXXXX)
ex() { local h=$1; shift; ip netns exec "$tb-h$h" "$@"; }
"$root/metaroce" --version >/dev/null # build once, before any timing
# A private copy of the build (as bench/soak.sh): editing sources meanwhile must not rebuild under the runs
cp -r "$root/cli/target/metaroce-cli.jar" "$root/cli/target/lib" "$out/"
java_bin="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
mt="$out/metaroce"
printf '#!/usr/bin/env bash\nexec "%s" --enable-native-access=ALL-UNNAMED,io.metaroce.net -p "%s" -m io.metaroce.cli/io.metaroce.cli.Main "$@"\n' \
  "$java_bin" "$out/metaroce-cli.jar:$out/lib" > "$mt"
chmod +x "$mt"
mr() { "$mt" "$@"; }
cleanup() { mr testbed down --name "$tb" >/dev/null 2>&1 || true; }
trap cleanup EXIT
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$out/psk.hex"
mr testbed up --name "$tb" --hosts 2 --planes 1 --mtu 9000 --offloads on >/dev/null
echo "auth-wire: test bed $tb (2 hosts, 1 plane, MTU 9000), write-bw -s $size for $secs s per run, $rounds rounds; logs in $out"
run() { # mode round -> goodput Gb/s
  local mode=$1 r=$2 flags=()
  case "$mode" in tag) flags=(--auth-key "$out/psk.hex") ;; encrypt) flags=(--auth-key "$out/psk.hex" --encrypt) ;; esac
  ex 1 "$mt" perf write-bw -p 4793 --planes 10.200.0.2 --paths 4 --payload-mtu 8192 -s "$size" --verify \
      ${flags[@]+"${flags[@]}"} > "$out/$mode-$r.server.log" 2>&1 &
  local spid=$!
  for _ in $(seq 1 100); do grep -q "listening on" "$out/$mode-$r.server.log" 2>/dev/null && break; sleep 0.2; done
  ex 0 "$mt" perf write-bw 10.200.0.2 -p 4793 --planes 10.200.0.1 --paths 4 --payload-mtu 8192 -s "$size" \
      -D "$secs" --report-gbits --world testbed --name "auth-$mode" --record "$out/$mode-$r.yaml" \
      ${flags[@]+"${flags[@]}"} > "$out/$mode-$r.client.log" 2>&1 || true
  wait "$spid" 2>/dev/null || true
  grep -q "data verified" "$out/$mode-$r.server.log" || echo "auth-wire: $mode round $r: server did not verify the data" >&2
  awk '$1 == "goodput_gbps:" {print $2}' "$out/$mode-$r.yaml" 2>/dev/null
}
declare -A got
for r in $(seq 1 "$rounds"); do
  for mode in off tag encrypt; do
    g=$(run "$mode" "$r"); got[$mode]="${got[$mode]:-} $g"
    printf '  round %d %-8s %s Gb/s\n' "$r" "$mode" "${g:-?}"
  done
done
python3 - "${got[off]}" "${got[tag]}" "${got[encrypt]}" <<'PY'
import statistics, sys
modes = ["off", "tag", "encrypt"]
vals = {m: [float(x) for x in s.split()] for m, s in zip(modes, sys.argv[1:])}
base = statistics.median(vals["off"]) if vals["off"] else 0
print(f"\n{'auth':>8} {'min':>7} {'median':>7} {'max':>7}  Gb/s   vs off")
for m in modes:
    v = vals[m]
    if not v:
        print(f"{m:>8}  (no result)"); continue
    med = statistics.median(v)
    print(f"{m:>8} {min(v):7.3f} {med:7.3f} {max(v):7.3f}        {med / base if base else 0:6.3f}")
PY
