#!/usr/bin/env bash
# Engine datapath benchmark: builds the JMH uber jar, runs EngineBench (engine pair, copy baseline, data floor, one
# CRC32C) with the GC profiler, saves the JMH JSON to bench/results/engine.json and prints a summary against the targets.
#
# Usage: bench/engine.sh [extra JMH args]     e.g. bench/engine.sh -wi 1 -i 2 -r 1s
# Extra arguments are passed to JMH; one of -wi -w -i -r -f replaces the default below. -rf/-rff are fixed
# (the summary reads the JSON), and -prof gc is always on.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build_benchmarks_jar
json=bench/results/engine.json
rm -f "$json"

# JMH rejects an option given twice, so a default is dropped when the caller gives the same option.
defaults=(-wi 3 -w 2s -i 5 -r 2s -f 1)
args=()
for ((k = 0; k < ${#defaults[@]}; k += 2)); do
  given=0
  for a in "$@"; do
    [[ "$a" == "${defaults[k]}" ]] && given=1
  done
  ((given)) || args+=("${defaults[k]}" "${defaults[k + 1]}")
done

echo "== running EngineBench (progress below is JMH's)"
"$java_bin" -jar bench/target/benchmarks.jar EngineBench -prof gc "${args[@]}" -rf json -rff "$json" "$@"

if [[ ! -s "$json" ]]; then
  echo "no results in $json" >&2
  exit 1
fi

echo
echo "== summary ($json)"
echo "One op = one data packet (engine) or one payload copy (baseline). transmit=copy: the engine copies each payload"
echo "twice (region -> datagram -> region); transmit=gather: once, and the loop's assembly copy stands in for the"
echo "kernel's. Either way each datagram is CRC32C'd twice (seal, check). dataFloor: those two copies and two CRCs"
echo "alone, no protocol (the best any engine pair can do); crcBaseline: one CRC32C of a data datagram."
echo

if command -v python3 >/dev/null 2>&1 && python3 -c 'import json' >/dev/null 2>&1; then
  python3 - "$json" <<'PY'
import json, re, sys

with open(sys.argv[1]) as f:
    runs = json.load(f)

def metric(run, name):
    for k, v in run.get("secondaryMetrics", {}).items():
        if re.sub(r"^[^a-z]+", "", k) == name:
            return v["score"]
    return None

rows = {}
base = {}
parts = {}
for r in runs:
    method = r["benchmark"].rsplit(".", 1)[1]
    params = r.get("params", {})
    payload = int(params.get("payload", "0"))
    score = r["primaryMetric"]["score"]
    alloc = metric(r, "gc.alloc.rate.norm")
    if method == "copyBaseline":
        base.setdefault(payload, (score, alloc))
    elif method in ("dataFloor", "crcBaseline"):
        parts.setdefault((method, payload), score)
    else:
        rows[(payload, params.get("packetsPerMessage", "?"), params.get("transmit", "?"),
              params.get("ackBundle", "?"))] = (score, alloc)
for payload in base:
    if not any(k[0] == payload for k in rows):
        rows[(payload, "-", "-", "-")] = None

def gbps(ops, payload):
    return ops * payload * 8 / 1e9

hdr = (f"{'payload':>7} {'pkts/msg':>8} {'transmit':>8} {'bundle':>6} {'engine pkt/s':>14} {'engine Gb/s':>11} "
       f"{'base Gb/s':>10} {'ratio':>6} {'B/pkt':>8}  targets")
print(hdr)
print("-" * len(hdr))
fmt = lambda v, f: (f.format(v) if v is not None else "-")
for key in sorted(rows):
    payload, ppm, transmit, bundle = key
    eng = rows[key]
    eops, alloc = eng if eng else (None, None)
    egb = gbps(eops, payload) if eops is not None else None
    bgb = gbps(base[payload][0], payload) if payload in base else None
    ratio = egb / bgb if (egb is not None and bgb) else None
    targets = []
    if payload >= 4096 and ratio is not None:
        targets.append(f"ratio>=0.5 {'PASS' if ratio >= 0.5 else 'MISS'}")
    if payload <= 64 and eops is not None:
        targets.append(f">=2.0M pkt/s {'PASS' if eops >= 2e6 else 'MISS'}")
    if alloc is not None:
        targets.append(f"~0 B/pkt {'PASS' if alloc < 1.0 else 'MISS'}")
    print(f"{payload:>7} {ppm:>8} {transmit:>8} {bundle:>6} {fmt(eops, '{:,.0f}'):>14} {fmt(egb, '{:.2f}'):>11} "
          f"{fmt(bgb, '{:.2f}'):>10} {fmt(ratio, '{:.3f}'):>6} {fmt(alloc, '{:.1f}'):>8}  {', '.join(targets)}")
ns = lambda ops: 1e9 / ops if ops else None
for payload in sorted(base):
    floor = parts.get(("dataFloor", payload))
    crc = parts.get(("crcBaseline", payload))
    if floor is None or crc is None:
        continue
    copy_ns, crc_ns, floor_ns = ns(base[payload][0]), ns(crc), ns(floor)
    print(f"\n{payload} B per packet: one copy {copy_ns:.1f} ns, one CRC32C of the datagram {crc_ns:.1f} ns; "
          f"data floor (2 CRCs + 2 copies, no protocol) {floor_ns:.1f} ns = {copy_ns / floor_ns:.3f}x the baseline "
          f"at best")
    for key in sorted(k for k in rows if k[0] == payload and rows[k]):
        eng_ns = ns(rows[key][0])
        print(f"  engine transmit={key[2]}: {eng_ns:.1f} ns per packet = floor {floor_ns:.1f} + protocol "
              f"{eng_ns - floor_ns:.1f} ns ({(eng_ns - floor_ns) / eng_ns * 100:.0f}% of the packet's time)")
for payload, (score, alloc) in sorted(base.items()):
    if alloc is not None and alloc >= 1.0:
        print(f"note: the {payload} B baseline itself allocated {alloc:.1f} B/op")
PY
else
  # Fallback without python3: JMH's JSON is pretty-printed one field per line, so a small state machine works.
  awk '
    function flush() {
      if (bench == "") return
      key = payload
      if (bench ~ /\.engine"?,?$/) { eng[key] = score; alloc[key] = norm }
      else if (bench ~ /\.copyBaseline"?,?$/) { base[key] = score }
      keys[key] = 1
    }
    /"benchmark" :/ { flush(); bench = $3; score = ""; norm = ""; section = "" }
    /"payload" :/ { v = $3; gsub(/[",]/, "", v); payload = v }
    /"primaryMetric" :/ { section = "primary" }
    /"gc.alloc.rate.norm" :/ { section = "norm" }
    /"secondaryMetrics" :/ { if (section == "primary") section = "" }
    /"score" :/ {
      v = $3; gsub(/,/, "", v)
      if (section == "primary") { score = v; section = "" }
      else if (section == "norm") { norm = v; section = "" }
    }
    END {
      flush()
      printf "%7s %14s %11s %10s %6s %8s\n", "payload", "engine pkt/s", "engine Gb/s", "base Gb/s", "ratio", "B/pkt"
      for (k in keys) {
        eg = eng[k] * k * 8 / 1e9; bg = base[k] * k * 8 / 1e9
        printf "%7d %14.0f %11.2f %10.2f %6.3f %8.1f\n", k, eng[k], eg, bg, (bg > 0 ? eg / bg : 0), alloc[k]
      }
      print "targets: 4096 B ratio >= 0.5; 64 B >= 2,000,000 pkt/s; ~0 B/pkt"
    }
  ' "$json"
fi
