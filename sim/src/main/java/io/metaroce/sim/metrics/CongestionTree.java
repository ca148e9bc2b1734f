package io.metaroce.sim.metrics;

import io.metaroce.sim.event.EventHandler;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Timer;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.SwitchPort;
import io.metaroce.sim.transport.Transport;
import io.metaroce.sim.workload.Workload;
import io.metaroce.sim.workload.WorkloadSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * E6's view of a {@code hotspot} or {@code storm} workload: the victims' goodput before and during the hot spot,
 * and how far PFC pauses spread upstream of the hot receiver ({@link PauseHops}). For {@code storm} it also makes
 * the receiver's NIC stop draining at {@code hotStartPs}: on a PFC fabric the NIC pauses the switch port feeding
 * it and never resumes it (a stuck NIC sending pause frames without end); without PFC the NIC takes nothing and
 * every packet to it is lost (its downlink goes down).
 *
 * <p>Metrics: {@code victim_goodput_before_gbps} (the victims' aggregate goodput per sample, mean from the end of
 * the first interval to the hot spot's start: their uncongested goodput), {@code victim_goodput_during_gbps} (mean
 * over the samples from the hot spot's start to the last hot sender's completion, or to the end of the run, and
 * no later than the first victim's completion), {@code victim_goodput_kept} (during over before),
 * {@code victim_goodput_min_gbps}, {@code hot_goodput_gbps}, {@code victims_completed}, {@code victims},
 * {@code pause_reach_hops} (the farthest hop with a pause), and per hop h = 1..max: {@code pfc_pauses_hop<h>},
 * {@code pfc_paused_us_hop<h>} (paused time summed over the hop's ports) and {@code ports_paused_hop<h>} (ports
 * paused at least once, of {@code ports_hop<h>}). Series: {@code victim_goodput} (victims and hot senders over
 * time), {@code paused_ports_per_hop} (ports paused at the end of each interval, per hop) and
 * {@code pause_spread} (per hop: pauses, paused time and ports paused over the run).
 */
public final class CongestionTree implements EventHandler {
    private final EventLoop loop;
    private final long intervalPs;
    private final Transport transport;
    private final Workload workload;
    private final long hotStartPs;
    private final PauseHops hops;
    private final Timer timer;
    private final long[] lastConnBytes;
    private final SeriesRecorder goodput;
    private final SeriesRecorder pausedNow;
    private final int[] pausedAtHop;

    /**
     * Watches {@code workload} (kind hotspot or storm) on {@code fabric}, sampling every {@code intervalPs}; for a
     * storm, schedules the stuck NIC.
     */
    public CongestionTree(EventLoop loop, Fabric fabric, Transport transport, Workload workload, WorkloadSpec spec,
                   long intervalPs) {
        this.loop = loop;
        this.intervalPs = intervalPs;
        this.transport = transport;
        this.workload = workload;
        this.hotStartPs = spec.hotStartPs;
        this.hops = new PauseHops(fabric, spec.receiver);
        this.timer = new Timer(loop, this);
        this.lastConnBytes = new long[transport.connections()];
        String time = Series.TIME_US;
        goodput = new SeriesRecorder("victim_goodput", "Goodput of the victim flows and of the hot senders", time,
                "goodput (Gb/s)", List.of("victims", "hot senders"));
        List<String> hopCols = new ArrayList<>();
        for (int h = 1; h <= hops.maxHop(); h++) {
            hopCols.add("hop " + h);
        }
        pausedNow = new SeriesRecorder("paused_ports_per_hop", "Ports paused by PFC, per hop upstream of host "
                + spec.receiver, time, "ports paused", hopCols);
        pausedAtHop = new int[hops.maxHop() + 1];
        if (workload.kind().equals("storm")) {
            stickReceiver(fabric, spec.receiver, spec.hotStartPs);
        }
    }

    /** True for the workload kinds this watches. */
    public static boolean applies(Workload workload) {
        return workload.kind().equals("hotspot") || workload.kind().equals("storm");
    }

    private void stickReceiver(Fabric fabric, int host, long atPs) {
        for (int p = 0; p < fabric.planes(); p++) {
            Link down = fabric.hostDownlink(host, p);
            SwitchPort feeding = down.source();
            if (fabric.config().pfc && feeding != null) {
                loop.schedule(atPs, feeding, SwitchPort.PFC_PAUSE); // never resumed
            } else {
                loop.schedule(atPs, arg -> down.setUp(false), 0);
            }
        }
    }

    /** Takes the first sample one interval after {@code startPs}. */
    public void start(long startPs) {
        timer.set(startPs + intervalPs, 0);
    }

    /** Stops sampling (the run is over). */
    public void stop() {
        timer.cancel();
    }

    @Override
    public void onEvent(long arg) {
        long now = loop.nowPs();
        double victims = 0;
        double hot = 0;
        for (int c = 0; c < lastConnBytes.length; c++) {
            long b = transport.receivedBytes(c);
            double d = b - lastConnBytes[c];
            lastConnBytes[c] = b;
            if (workload.flowOf(c).hot) {
                hot += d;
            } else {
                victims += d;
            }
        }
        double xUs = now / (double) Units.PS_PER_US;
        goodput.row(xUs);
        goodput.set(0, victims * 8.0 * 1000.0 / intervalPs);
        goodput.set(1, hot * 8.0 * 1000.0 / intervalPs);
        java.util.Arrays.fill(pausedAtHop, 0);
        for (int i = 0; i < hops.size(); i++) {
            if (hops.port(i).isPaused()) {
                pausedAtHop[hops.hop(i)]++;
            }
        }
        pausedNow.row(xUs);
        for (int h = 1; h <= hops.maxHop(); h++) {
            pausedNow.set(h - 1, pausedAtHop[h]);
        }
        timer.set(now + intervalPs, 0);
    }

    /** Adds the metrics of the class comment to {@code m}; {@code endPs} is the end of the run. */
    public void metrics(Map<String, Object> m, long startPs, long endPs) {
        long hotEnd = -1;
        long firstVictimDone = Long.MAX_VALUE;
        int victims = 0;
        int victimsDone = 0;
        boolean hotAllDone = true;
        for (Workload.Flow f : workload.flows()) {
            if (f.hot) {
                hotAllDone &= f.done();
                hotEnd = Math.max(hotEnd, f.finishPs);
            } else {
                victims++;
                if (f.ok()) {
                    victimsDone++;
                }
                if (f.done()) {
                    firstVictimDone = Math.min(firstVictimDone, f.finishPs);
                }
            }
        }
        long duringEnd = Math.min(hotAllDone ? hotEnd : endPs, firstVictimDone);
        double[] before = new double[2];
        double[] during = new double[2];
        double[] hotSum = new double[2];
        double min = Double.POSITIVE_INFINITY;
        for (int i = 0; i < goodput.size(); i++) {
            long t = Math.round(goodput.x(i) * Units.PS_PER_US);
            long from = t - intervalPs;
            double v = goodput.get(0, i);
            if (from >= startPs + intervalPs && t <= hotStartPs) {
                before[0] += v;
                before[1]++;
            } else if (from >= hotStartPs && t <= duringEnd) {
                during[0] += v;
                during[1]++;
                min = Math.min(min, v);
                hotSum[0] += goodput.get(1, i);
                hotSum[1]++;
            }
        }
        double b = before[1] == 0 ? Double.NaN : before[0] / before[1];
        double d = during[1] == 0 ? Double.NaN : during[0] / during[1];
        m.put("victims", (long) victims);
        m.put("victims_completed", (long) victimsDone);
        m.put("victim_goodput_before_gbps", b);
        m.put("victim_goodput_during_gbps", d);
        m.put("victim_goodput_kept", d / b);
        m.put("victim_goodput_min_gbps", during[1] == 0 ? Double.NaN : min);
        m.put("hot_goodput_gbps", hotSum[1] == 0 ? Double.NaN : hotSum[0] / hotSum[1]);
        int reach = 0;
        for (int h = 1; h <= hops.maxHop(); h++) {
            long pauses = 0;
            long pausedPs = 0;
            long paused = 0;
            long ports = 0;
            for (int i = 0; i < hops.size(); i++) {
                if (hops.hop(i) == h) {
                    SwitchPort sp = hops.port(i);
                    ports++;
                    pauses += sp.pfcPauses();
                    pausedPs += sp.pfcPausedPs();
                    paused += sp.pfcPauses() > 0 ? 1 : 0;
                }
            }
            if (pauses > 0) {
                reach = h;
            }
            m.put("pfc_pauses_hop" + h, pauses);
            m.put("pfc_paused_us_hop" + h, pausedPs / (double) Units.PS_PER_US);
            m.put("ports_paused_hop" + h, paused);
            m.put("ports_hop" + h, ports);
        }
        m.put("pause_reach_hops", (long) reach);
    }

    /** The series of the class comment, the per-hop summary built from {@code m} (after {@link #metrics}). */
    public List<Series> series(Map<String, Object> m) {
        int n = hops.maxHop();
        double[] x = new double[n];
        double[][] y = new double[3][n];
        for (int h = 1; h <= n; h++) {
            x[h - 1] = h;
            y[0][h - 1] = ((Number) m.get("pfc_pauses_hop" + h)).doubleValue();
            y[1][h - 1] = ((Number) m.get("pfc_paused_us_hop" + h)).doubleValue();
            y[2][h - 1] = ((Number) m.get("ports_paused_hop" + h)).doubleValue();
        }
        Series spread = new Series("pause_spread", "PFC pauses per hop upstream of the hot receiver",
                "hop upstream of the hot receiver", "count / us", List.of("pauses", "paused time (us, summed)",
                "ports paused"), x, y);
        List<Series> out = new ArrayList<>(List.of(goodput.toSeries(), spread));
        if (n > 0) {
            out.add(pausedNow.toSeries());
        }
        return out;
    }
}
