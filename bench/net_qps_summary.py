"""Summarises bench/net.sh section 5: interleaved rounds of 1 QP and N QPs on one device.

Per round: both goodputs and their ratio, the N-QP run's error completions, path-health probes per second (PROBEs
the client sent to failed paths, TX_PROBES - TAIL_PROBES, over the run's elapsed time) at 1 and N QPs, the N-QP
run's tail-loss probes per second (RTO-6: each QP's own tail, so they grow with the QPs), time past the posting window until the last completion (the tail), and the
memory per QP (peak RSS difference). Then min / median / max over the rounds. A run that wrote no record is
reported as such (it failed: see its client log), never replaced by an older figure.

Usage: python3 bench/net_qps_summary.py OUT_DIR QPS ROUNDS DURATION_S
"""
import pathlib
import re
import statistics
import sys

out, qps, rounds, secs = pathlib.Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])


def record(name):
    f = out / f"{name}.yaml"
    if not f.exists():
        return None
    return {k: float(v) for k, v in re.findall(r"^\s+(\w+):\s*([-0-9.eE]+)\s*$", f.read_text(), re.M)}


def counter(name, key):
    f = out / f"{name}.client.log"
    m = re.search(rf"^\s+{key}\s+(\d+)", f.read_text(), re.M) if f.exists() else None
    return int(m.group(1)) if m else 0


def spread(values, fmt):
    v = sorted(values)
    return (fmt % v[0], fmt % statistics.median(v), fmt % v[-1]) if v else ("-", "-", "-")


ratios, probes_one, probes_many, tlps, tails, mems, errors = [], [], [], [], [], [], 0
print(f"   {'round':<6}{'1 QP Gb/s':>11}{f'{qps} QPs Gb/s':>16}{'ratio':>8}{'err':>6}{'probes/s 1':>12}"
      f"{f'probes/s {qps}':>15}{f'TLP/s {qps}':>12}{'tail s':>8}")
for k in range(1, rounds + 1):
    a, b = record(f"qps-1-r{k}"), record(f"qps-{qps}-r{k}")
    err = counter(f"qps-{qps}-r{k}", "ERROR_COMPLETIONS")
    errors += err
    if not a or not b:
        print(f"   {k:<6}{'no record' if not a else '%.3f' % a['goodput_gbps']:>11}"
              f"{'no record' if not b else '%.3f' % b['goodput_gbps']:>16}   (a run failed: see its client log)")
        continue
    ratio = b["goodput_gbps"] / a["goodput_gbps"] if a["goodput_gbps"] else 0.0
    health = lambda name: counter(name, "TX_PROBES") - counter(name, "TAIL_PROBES")
    p1 = health(f"qps-1-r{k}") / a["elapsed_s"]
    pn = health(f"qps-{qps}-r{k}") / b["elapsed_s"]
    tlp = counter(f"qps-{qps}-r{k}", "TAIL_PROBES") / b["elapsed_s"]
    tail = b["elapsed_s"] - secs
    ratios.append(ratio); probes_one.append(p1); probes_many.append(pn); tlps.append(tlp); tails.append(tail)
    if a.get("peak_rss_kib") and b.get("peak_rss_kib"):
        mems.append((b["peak_rss_kib"] - a["peak_rss_kib"]) / (qps - 1))
    print(f"   {k:<6}{a['goodput_gbps']:>11.3f}{b['goodput_gbps']:>16.3f}{ratio:>8.2f}{err:>6}{p1:>12.1f}{pn:>15.1f}"
          f"{tlp:>12.1f}{tail:>8.2f}")
print("   min / median / max over %d rounds:" % len(ratios))
print("     goodput ratio %d QPs / 1 QP      %s / %s / %s" % ((qps,) + spread(ratios, "%.2f")))
print("     health probes per second, 1 QP   %s / %s / %s" % spread(probes_one, "%.1f"))
print("     health probes per second, %d QPs  %s / %s / %s" % ((qps,) + spread(probes_many, "%.1f")))
print("     tail-loss probes per second, %d QPs  %s / %s / %s" % ((qps,) + spread(tlps, "%.1f")))
print("     tail past the %.0f s window (s)     %s / %s / %s" % ((secs,) + spread(tails, "%.2f")))
print("     memory per QP (KiB, peak RSS)    %s / %s / %s" % spread(mems, "%.1f"))
print("     error completions (%d QPs runs)  %d" % (qps, errors))
