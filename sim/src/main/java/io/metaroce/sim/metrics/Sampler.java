package io.metaroce.sim.metrics;

import io.metaroce.core.QueuePair;
import io.metaroce.sim.event.EventHandler;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Timer;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.CrossTraffic;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.SwitchPort;
import io.metaroce.sim.transport.Transport;
import io.metaroce.sim.workload.Workload;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Samples a run every interval with one timer: aggregate goodput, goodput per flow (capped), per receiving
 * host (capped) and per plane, queue depth of watched ports, throughput of watched links, Jain fairness over the
 * flows active through the fairness window (the interval, or the last few: {@link #fairWindow}), cumulative drops,
 * ECN marks and retransmits, and (MetaRoCE) the congestion window of every path of the first connection. Goodput is
 * payload newly
 * placed at the receivers ({@link Transport#receivedBytes}) per interval, in Gb/s.
 */
public final class Sampler implements EventHandler {
    /** Lets the runner look at the wall clock between samples (never inside the model). */
    @FunctionalInterface
    public interface Tick {
        /** Called after each sample. */
        void tick();
    }

    private final EventLoop loop;
    private final long intervalPs;
    private final Transport transport;
    private final Workload workload;
    private final Fabric fabric;
    private final List<SwitchPort> ports;
    private final List<Link> links;
    private final Link crossLink;
    private final CrossTraffic cross;
    private final Tick tick;
    private final Timer timer;

    private final long[] lastConnBytes;
    private final long[] lastFlowBytes;
    private final double[] flowDelta;
    private final int[] receiverColumn;
    private final long[] lastPlaneBytes;
    private final long[] lastLinkBytes;
    private long lastCrossBytes;

    private final SeriesRecorder aggregate;
    private final SeriesRecorder perFlow;
    private final SeriesRecorder perReceiver;
    private final SeriesRecorder perPlane;
    private final SeriesRecorder queues;
    private final SeriesRecorder linkRates;
    private final SeriesRecorder fairness;
    private final SeriesRecorder counters;
    private final QueuePair pathsOf;
    private final SeriesRecorder cwnd;
    /** Flows active through each sample's fairness window (for time-to-fair). */
    private final SeriesRecorder active;
    /** The window the fairness series judges (one interval unless {@link #fairWindow} says otherwise). */
    private FairnessWindow fairWindow;

    /**
     * A sampler every {@code intervalPs} (picoseconds) of {@code transport} running {@code workload} on {@code
     * fabric}, with the watched ports and links, the cross traffic on {@code crossLink} (may be null), the paths of
     * {@code pathsOf} (MetaRoCE, may be null), at most {@code maxColumns} per-flow columns, and {@code tick} called
     * after each sample.
     */
    public Sampler(EventLoop loop, long intervalPs, Transport transport, Workload workload, Fabric fabric,
            Map<String, SwitchPort> watchedPorts, Map<String, Link> watchedLinks, Link crossLink, CrossTraffic cross,
            QueuePair pathsOf, int maxColumns, Tick tick) {
        if (intervalPs <= 0) {
            throw new IllegalArgumentException("sample interval must be positive, got " + intervalPs + " ps");
        }
        this.loop = loop;
        this.intervalPs = intervalPs;
        this.transport = transport;
        this.workload = workload;
        this.fabric = fabric;
        this.ports = new ArrayList<>(watchedPorts.values());
        this.links = new ArrayList<>(watchedLinks.values());
        this.crossLink = crossLink;
        this.cross = cross;
        this.tick = tick;
        this.timer = new Timer(loop, this);
        List<Workload.Flow> flows = workload.flows();
        lastConnBytes = new long[transport.connections()];
        lastFlowBytes = new long[flows.size()];
        flowDelta = new double[flows.size()];
        fairWindow = new FairnessWindow(1, flows.size());
        String time = Series.TIME_US;
        aggregate = new SeriesRecorder("goodput", "Aggregate goodput", time, "goodput (Gb/s)", List.of("aggregate"));
        List<String> flowCols = new ArrayList<>();
        boolean incast = workload.kind().equals("incast");
        for (int i = 0; i < Math.min(maxColumns, flows.size()); i++) {
            Workload.Flow f = flows.get(i);
            flowCols.add((incast ? "sender " : "flow ") + i + " (" + f.src() + "->" + f.dst() + ")");
        }
        perFlow = new SeriesRecorder(incast ? "goodput_per_sender" : "goodput_per_flow",
                incast ? "Goodput per sender" : "Goodput per flow", time, "goodput (Gb/s)", flowCols);
        receiverColumn = new int[fabric.hosts()];
        java.util.Arrays.fill(receiverColumn, -1);
        List<String> hostCols = new ArrayList<>();
        for (Workload.Flow f : flows) {
            if (receiverColumn[f.dst()] < 0 && hostCols.size() < maxColumns) {
                receiverColumn[f.dst()] = hostCols.size();
                hostCols.add("host " + f.dst());
            }
        }
        perReceiver = new SeriesRecorder("goodput_per_receiver", "Goodput per receiving host", time,
                "goodput (Gb/s)", hostCols);
        int planes = fabric.planes();
        lastPlaneBytes = new long[planes];
        List<String> planeCols = new ArrayList<>();
        for (int p = 0; p < planes; p++) {
            planeCols.add("plane " + p);
        }
        perPlane = planes > 1 ? new SeriesRecorder("goodput_per_plane",
                "Bytes carried per plane (host downlinks, wire)", time, "throughput (Gb/s)", planeCols) : null;
        queues = ports.isEmpty() ? null : new SeriesRecorder("queue_depth", "Queue depth", time, "queue (KB)",
                new ArrayList<>(watchedPorts.keySet()));
        lastLinkBytes = new long[links.size()];
        linkRates = links.isEmpty() ? null : new SeriesRecorder("link_throughput",
                "Transport throughput per watched link (wire)", time, "throughput (Gb/s)",
                new ArrayList<>(watchedLinks.keySet()));
        fairness = new SeriesRecorder("fairness", "Jain fairness over active flows", time, "Jain index",
                List.of("jain"));
        counters = new SeriesRecorder("counters", "Cumulative drops, ECN marks and retransmits", time, "count",
                List.of("drops", "ecn_marks", "retransmits"));
        active = new SeriesRecorder("active", "", time, "", List.of("active"));
        this.pathsOf = pathsOf;
        if (pathsOf != null) {
            List<String> pathCols = new ArrayList<>();
            for (int i = 0; i < Math.min(maxColumns, pathsOf.pathCount()); i++) {
                pathCols.add("path " + i + " (plane " + pathsOf.path(i).plane() + ")");
            }
            cwnd = new SeriesRecorder("path_cwnd", "Congestion window per path of the first connection", time,
                    "cwnd (KB)", pathCols);
        } else {
            cwnd = null;
        }
    }

    /**
     * The fairness series (and the active flows behind it) judges the bytes of the last {@code intervals} sample
     * intervals, a window sliding by one interval (default 1: each interval alone). Call before {@link #start}.
     */
    public void fairWindow(int intervals) {
        fairWindow = new FairnessWindow(intervals, flowDelta.length);
    }

    /** Takes the first sample one interval after {@code startPs}. */
    public void start(long startPs) {
        for (int p = 0; p < lastPlaneBytes.length; p++) {
            lastPlaneBytes[p] = planeBytes(p);
        }
        for (int i = 0; i < links.size(); i++) {
            lastLinkBytes[i] = links.get(i).bytes();
        }
        timer.set(startPs + intervalPs, 0);
    }

    /** Stops sampling (no sample after this). */
    public void stop() {
        timer.cancel();
    }

    private long planeBytes(int p) {
        long n = 0;
        for (int h = 0; h < fabric.hosts(); h++) {
            n += fabric.hostDownlink(h, p).bytes();
        }
        return n;
    }

    private double gbps(double bytes) {
        return bytes * 8.0 * 1000.0 / intervalPs; // bits per ps = Tb/s
    }

    @Override
    public void onEvent(long arg) {
        long now = loop.nowPs();
        double xUs = now / (double) Units.PS_PER_US;
        List<Workload.Flow> flows = workload.flows();
        java.util.Arrays.fill(flowDelta, 0);
        for (int c = 0; c < lastConnBytes.length; c++) {
            long b = transport.receivedBytes(c);
            flowDelta[workload.flowOf(c).index] += b - lastConnBytes[c];
            lastConnBytes[c] = b;
        }
        double total = 0;
        perFlow.row(xUs);
        perReceiver.row(xUs);
        double sum = 0;
        double sumSq = 0;
        int n = 0;
        fairWindow.add(flowDelta);
        long from = now - fairWindow.intervals() * intervalPs; // fairness: flows active through the whole window
        for (int i = 0; i < flows.size(); i++) {
            Workload.Flow f = flows.get(i);
            double g = gbps(flowDelta[i]);
            total += flowDelta[i];
            if (i < perFlow.columns()) {
                perFlow.set(i, g);
            }
            int rc = receiverColumn[f.dst()];
            if (rc >= 0) {
                perReceiver.set(rc, perReceiver.get(rc, perReceiver.size() - 1) + g);
            }
            if (fairWindow.full() && f.startPs <= from && !f.done()) {
                double w = gbps(fairWindow.bytes(i));
                sum += w;
                sumSq += w * w;
                n++;
            }
        }
        aggregate.row(xUs);
        aggregate.set(0, gbps(total));
        fairness.row(xUs);
        fairness.set(0, n == 0 ? Double.NaN : sumSq == 0 ? 1.0 : sum * sum / (n * sumSq));
        active.row(xUs);
        active.set(0, n);
        if (perPlane != null) {
            perPlane.row(xUs);
            for (int p = 0; p < lastPlaneBytes.length; p++) {
                long b = planeBytes(p);
                perPlane.set(p, gbps(b - lastPlaneBytes[p]));
                lastPlaneBytes[p] = b;
            }
        }
        if (queues != null) {
            queues.row(xUs);
            for (int i = 0; i < ports.size(); i++) {
                queues.set(i, ports.get(i).queuedBytes() / 1000.0);
            }
        }
        if (linkRates != null) {
            linkRates.row(xUs);
            long crossBytes = cross == null ? 0 : cross.acceptedBytes();
            for (int i = 0; i < links.size(); i++) {
                Link l = links.get(i);
                long b = l.bytes();
                long d = b - lastLinkBytes[i];
                if (l == crossLink) {
                    d -= crossBytes - lastCrossBytes;
                }
                linkRates.set(i, gbps(Math.max(0, d)));
                lastLinkBytes[i] = b;
            }
            lastCrossBytes = crossBytes;
        }
        if (cwnd != null) {
            cwnd.row(xUs);
            for (int i = 0; i < cwnd.columns(); i++) {
                cwnd.set(i, pathsOf.path(i).cwndBytes() / 1000.0);
            }
        }
        counters.row(xUs);
        long[] drops = FabricCounters.drops(fabric);
        counters.set(0, drops[0] + drops[1]);
        counters.set(1, FabricCounters.ecnMarks(fabric));
        counters.set(2, transport.counters().getOrDefault("retransmits", 0L));
        tick.tick();
        if (!workload.done()) {
            timer.set(now + intervalPs, 0);
        }
    }

    /** Samples taken. */
    public int samples() {
        return aggregate.size();
    }

    /** Aggregate goodput recorder (x in us, Gb/s). */
    public SeriesRecorder aggregate() { return aggregate; }
    /** Jain fairness over the active flows' bytes in each sample's fairness window. */
    public SeriesRecorder fairness() { return fairness; }
    /** Flows active through each sample's fairness window (for time-to-fair). */
    public SeriesRecorder active() { return active; }

    /** The recorded series, in a fixed order. */
    public List<Series> series() {
        Map<String, Series> out = new LinkedHashMap<>();
        for (SeriesRecorder r : new SeriesRecorder[] {aggregate, perFlow, perReceiver, perPlane, queues, linkRates,
                fairness, counters, cwnd}) {
            if (r != null) {
                Series s = r.toSeries();
                out.put(s.name(), s);
            }
        }
        return new ArrayList<>(out.values());
    }
}
