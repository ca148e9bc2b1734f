#!/usr/bin/env bash
# Cost of packet authentication (spec section 10): first AuthCost, CPU ns and bytes allocated per packet of the
# engine pair on the thread's own CPU clock, modes interleaved (the figure to trust on a loaded machine); then
# EngineBench's engine pair with auth=off, tag (AES-128-GCM tag, payload in clear) and encrypt (payload encrypted
# too; copy transmit, one ACK per data packet, as AuthCost), in one JMH run, with the GC profiler (bytes allocated per packet), then PacketAuthBench (PacketAuth alone:
# one packet sealed and opened, native and heap buffers), then AeadBench (AES-128-GCM vs ChaCha20-Poly1305 on the
# payload size alone). Prints packets/s, Gb/s of payload, the ratio to auth=off and B/packet. JSON in
# bench/results/auth.json, auth-packet.json and auth-aead.json.
#
# Usage: bench/auth.sh [--payload 4096] [extra JMH args]      e.g. bench/auth.sh -wi 2 -i 3 -f 2
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
payload=4096
if [[ "${1:-}" == "--payload" ]]; then payload=$2; shift 2; fi
build_benchmarks_jar
json=bench/results/auth.json
aead=bench/results/auth-aead.json
packet=bench/results/auth-packet.json
rm -f "$json" "$aead" "$packet"
defaults=(-wi 3 -w 2s -i 5 -r 2s -f 1)
args=()
for ((k = 0; k < ${#defaults[@]}; k += 2)); do
  given=0
  for a in "$@"; do [[ "$a" == "${defaults[k]}" ]] && given=1; done
  ((given)) || args+=("${defaults[k]}" "${defaults[k + 1]}")
done
echo "== CPU time per packet on the thread's own clock, modes interleaved (AuthCost; robust on a shared machine)"
"$java_bin" -cp bench/target/benchmarks.jar io.metaroce.bench.AuthCost "$payload" 7 200 | tee bench/results/auth-cpu.txt
echo "== EngineBench.engine with auth=off,tag,encrypt at $payload B (progress below is JMH's)"
"$java_bin" -jar bench/target/benchmarks.jar 'EngineBench.engine$' -p payload="$payload" -p auth=off,tag,encrypt \
  -p transmit=copy -p ackBundle=false \
  -prof gc "${args[@]}" -rf json -rff "$json" "$@"
echo "== PacketAuthBench (one packet sealed and opened per op, no engine)"
"$java_bin" -jar bench/target/benchmarks.jar PacketAuthBench -p payload="$payload" -prof gc "${args[@]}" -rf json \
  -rff "$packet" "$@"
echo "== AeadBench (one packet's payload sealed per op)"
"$java_bin" -jar bench/target/benchmarks.jar AeadBench -p payload="$payload" -prof gc "${args[@]}" -rf json -rff "$aead" "$@"
python3 - "$json" "$aead" "$packet" <<'PY'
import json, re, sys
def metric(run, name):
    for k, v in run.get("secondaryMetrics", {}).items():
        if re.sub(r"^[^a-z]+", "", k) == name:
            return v["score"]
    return None
runs = json.load(open(sys.argv[1]))
print("\n== engine pair, one op = one data packet delivered and placed")
print(f"{'auth':>8} {'payload':>7} {'pkt/s':>12} {'+-':>9} {'Gb/s':>7} {'vs off':>7} {'B/pkt':>8}")
off = {}
for r in runs:
    p = r["params"]
    if p["auth"] == "off":
        off[p["payload"]] = r["primaryMetric"]["score"]
for r in runs:
    p, m = r["params"], r["primaryMetric"]
    pay = int(p["payload"])
    ratio = m["score"] / off[p["payload"]] if p["payload"] in off else float("nan")
    alloc = metric(r, "gc.alloc.rate.norm")
    print(f"{p['auth']:>8} {pay:>7} {m['score']:>12,.0f} {float(m['scoreError']):>9,.0f} {m['score'] * pay * 8 / 1e9:>7.2f} "
          f"{ratio:>7.3f} {alloc if alloc is not None else float('nan'):>8.1f}")
def per_op(title, path, label):
    print(title)
    for r in json.load(open(path)):
        p, m = r["params"], r["primaryMetric"]
        pay = int(p["payload"])
        print(f"{label(p):>20} {pay:>6} B {m['score']:>12,.0f} op/s {m['score'] * pay * 8 / 1e9:>7.2f} Gb/s "
              f"{metric(r, 'gc.alloc.rate.norm') or 0:>8.1f} B/op")
per_op("\n== PacketAuth alone, one op = one packet sealed and opened", sys.argv[3],
       lambda p: f"{p['auth']} {p['memory']}")
per_op("\n== AEAD alone, one op = one packet's payload sealed (init + AAD + encrypt + tag)", sys.argv[2],
       lambda p: p["algorithm"])
PY
