package io.metaroce.cli.perf;

import io.metaroce.net.BufferInfo;
import io.metaroce.core.WorkCompletion;
import io.metaroce.core.Access;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.net.Device;
import io.metaroce.net.DeviceCq;
import io.metaroce.net.DeviceQp;
import io.metaroce.net.DeviceStats;
import io.metaroce.net.HugePageSlab;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * One side of a perf run: the device, its protection domain and completion queue, the connected endpoints,
 * and the steps every test shares. The set-up exchange (no side channel): right after accepting, the server
 * registers its buffers, posts its receives and SENDs its 24-byte buffer message; the client posts a receive
 * before connecting, waits for the server's message, then posts its own receives and SENDs its buffer message. The close: the client SENDs "done" (SEND_IMM with
 * its measurements), the server answers "bye"; the last side to receive lingers a moment so that its ACK leaves.
 */
final class Session implements AutoCloseable {
    /** What a test does with a completion the session does not handle itself. */
    @FunctionalInterface
    interface Handler {
        void on(WorkCompletion wc);
    }

    /** How long the client keeps its device open after "bye", so that the ACK for it is sent. */
    private static final long LINGER_NS = 20_000_000;
    /** How long the server waits for its "bye" to be acknowledged before it closes anyway. */
    private static final long BYE_WAIT_NS = 2_000_000_000L;

    final TestKind kind;
    final PerfOptions o;
    final PrintWriter out;
    final PrintWriter err;
    final Device device;
    final ProtectionDomain pd;
    final DeviceCq cq;
    final Poller poller;
    final WorkCompletion wc = new WorkCompletion();
    final List<Endpoint> eps = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    /** Data and control buffers, packed into huge pages where the kernel allows (fewer TLB misses per copy). */
    private final HugePageSlab slab = new HugePageSlab(arena);
    private final StatsFileWriter statsWriter;
    private final MetricsEndpoint metrics;
    private long lastProgressNs = System.nanoTime();
    /** The device's received datagrams at the last progress check. */
    private long lastRxDatagrams = -1;
    /** After "bye": flushed or failed work of a closing peer is expected, not an error. */
    private boolean finishing;

    Session(TestKind kind, PerfOptions o, PrintWriter out, PrintWriter err, int rqNeeded, int cqCapacity) {
        this.kind = kind;
        this.o = o;
        this.out = out;
        this.err = err;
        try {
            this.device = Device.open(o.deviceOptions(rqNeeded));
        } catch (IOException | RuntimeException e) {
            throw new PerfException(o.server() ? PerfException.CONNECT : PerfException.ERROR,
                    "cannot open the device on " + String.join(",", o.planes)
                            + (o.server() ? " port " + o.port : "") + ": " + e.getMessage(), e);
        }
        try {
            this.pd = device.allocPd();
            this.cq = device.createCq(cqCapacity);
            this.poller = new Poller(o.idleValue(), device);
            this.statsWriter = o.statsFile == null ? null : StatsFileWriter.start(device, o.statsFile, 1_000, err);
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
        try {
            this.metrics = o.metrics.enabled() ? startMetrics() : null;
        } catch (RuntimeException e) {
            if (statsWriter != null) {
                statsWriter.close();
            }
            device.close();
            throw e;
        }
    }

    private MetricsEndpoint startMetrics() {
        try {
            MetricsEndpoint m = MetricsEndpoint.start(o.metrics.bind(), o.metrics.port(), device::stats, null);
            out.println("metrics: " + m.url());
            out.flush();
            return m;
        } catch (IOException | IllegalArgumentException e) {
            throw new PerfException(PerfException.ERROR, "cannot serve metrics on " + o.metrics.bind() + ":"
                    + o.metrics.port() + ": " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------ memory

    MemorySegment allocate(long bytes) {
        return slab.allocate(Math.max(1, bytes), 4096);
    }

    MemoryRegion register(MemorySegment seg) {
        return device.registerMemory(pd, seg, Access.ALL);
    }

    /**
     * -a: makes the session ready for the next size's test over new connections of the same device: the
     * completions the closed connections left (flushed work) are dropped, the endpoints forgotten.
     */
    void nextTest() {
        while (cq.poll(wc)) {
            device.invoke();
        }
        eps.clear();
        finishing = false;
        progress();
        lastRxDatagrams = -1;
    }

    // ------------------------------------------------------------------ connection set-up

    /** Client: connects {@code -q} QPs to the server, each with its receive for the buffer message posted first. */
    void connectAll() {
        InetSocketAddress server;
        try {
            server = new InetSocketAddress(InetAddress.getByName(o.host), o.port);
        } catch (UnknownHostException e) {
            throw new PerfException(PerfException.CONNECT, "unknown host " + o.host);
        }
        long timeoutMs = Math.max(1, o.timeoutNs() / 1_000_000);
        for (int i = 0; i < o.qps; i++) {
            DeviceQp qp = device.createQp(pd, cq, cq);
            Endpoint ep = new Endpoint(i, qp, register(allocate(Endpoint.CTRL_BYTES)));
            eps.add(ep);
            // posted before connecting (the QP is in INIT), so the server's message finds it
            postRecv(ep, Wire.WR_INFO_RECV, 0, ep.ctrl, Endpoint.CTRL_PEER_INFO, BufferInfo.BYTES);
            try {
                device.connect(qp, server, timeoutMs);
            } catch (IllegalStateException e) {
                throw new PerfException(PerfException.CONNECT, "cannot connect QP " + (i + 1) + " of " + o.qps
                        + " to " + o.host + ":" + o.port + ": " + e.getMessage());
            }
        }
        progress(); // --timeout counts from here: connecting had its own limit
        lastRxDatagrams = device.rxDatagrams();
    }

    /**
     * Whether every endpoint satisfies {@code p}, for a wait loop that asks on every spin. {@code p} must stay true
     * once true (a message arrived, a QP entered ERROR): the supplier resumes at the first endpoint not yet seen to
     * satisfy it, so a wait over thousands of QPs costs O(1) per spin, not a scan of all of them (and no stream: one
     * allocated ~200 MB in a 4,000-ping write-lat server, and the GC pauses showed in the tails).
     */
    BooleanSupplier all(java.util.function.Predicate<Endpoint> p) {
        int[] next = {0};
        return () -> {
            int i = next[0];
            for (int n = eps.size(); i < n && p.test(eps.get(i)); i++) {
                // the endpoints before i satisfied p and still do
            }
            next[0] = i;
            return i == eps.size();
        };
    }

    /** Whether {@code qpn} is one of this test's endpoints (with -a, earlier tests' QPs share the CQ). */
    private boolean ours(int qpn) {
        for (int i = 0, n = eps.size(); i < n; i++) {
            if (eps.get(i).qp.qpn() == qpn) {
                return true;
            }
        }
        return false;
    }

    /** Client: waits until every server buffer message has arrived. */
    void awaitPeerInfo(Handler h) {
        await(all(e -> e.peer != null), "waiting for the server's buffer message", h);
    }

    /**
     * Server: listens, prints "listening on ADDR:PORT", accepts {@code -q} connections; for each, posts the
     * receive for the client's buffer message, lets {@code setup} register and post what the test needs, and
     * SENDs the buffer message {@code setup} left in {@link Endpoint#mine}.
     */
    void acceptAll(Consumer<Endpoint> setup) {
        device.listen(pd, cq, cq);
        InetSocketAddress at = device.planeAddresses().get(0);
        if (!o.continuesTable) { // -a: once, for the first size
            out.printf(Locale.ROOT, "listening on %s:%d (%d plane%s, %s%s)%n", at.getAddress().getHostAddress(),
                    device.port(), device.planeAddresses().size(), device.planeAddresses().size() == 1 ? "" : "s",
                    kind.id(), o.allSizes ? ", every size 2..8388608 bytes (-a)" : "");
            out.flush();
        }
        for (int i = 0; i < o.qps; i++) {
            DeviceQp qp = acceptOne(i);
            progress(); // a client came: --timeout counts from now, not from the start (the first wait has no limit)
            // (not a whole stats() snapshot per accepted QP: over 4,000 QPs that was O(QPs^2) of the server's setup)
            lastRxDatagrams = device.rxDatagrams();
            Endpoint ep = new Endpoint(i, qp, register(allocate(Endpoint.CTRL_BYTES)));
            eps.add(ep);
            postRecv(ep, Wire.WR_INFO_RECV, 0, ep.ctrl, Endpoint.CTRL_PEER_INFO, BufferInfo.BYTES);
            setup.accept(ep);
            sendInfo(ep);
        }
    }

    private DeviceQp acceptOne(int i) {
        try {
            if (i == 0) {
                while (true) { // the first client may come at any time
                    DeviceQp qp = device.accept(1_000);
                    if (qp != null) {
                        return qp;
                    }
                    checkDevice();
                }
            }
            DeviceQp qp = device.accept(Math.max(1, o.timeoutNs() / 1_000_000));
            if (qp == null) {
                throw new PerfException(PerfException.CONNECT, "only " + i + " of " + o.qps + " QPs connected within "
                        + o.timeoutS + " s: run the client with the same -q");
            }
            return qp;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException(PerfException.CONNECT, "interrupted while waiting for a client");
        }
    }

    /**
     * Set-up work on this thread between two of its waits (filling and registering thousands of buffers): with
     * {@code --agent inline} the device runs only when this thread lets it, so a loop over the QPs lets it run one
     * duty cycle per QP; otherwise the peer's packets would wait seconds for their ACKs and time out.
     */
    void serviceDevice() {
        device.invoke();
    }

    /**
     * Bandwidth server: its set-up is over (buffers registered, the client's buffer messages in, the header
     * printed): "ready" on the first QP tells the client to start.
     */
    void sendReady() {
        Endpoint ep = eps.get(0);
        post(ep, "ready", () -> ep.qp.postSendImm(Wire.wrId(Wire.WR_READY_SEND, ep.index, 0), ep.ctrl,
                Endpoint.CTRL_READY_SEND, 8, Wire.READY_IMM, QueuePair.SIGNALED), null);
    }

    /**
     * Between set-up and data, while neither side has a packet in flight (the server before its "ready", the
     * client after it): a full collection, as a benchmark harness runs between iterations. The objects of
     * thousands of QPs' set-up are young until then, and the first young collection of the data phase copied them
     * all in one pause of tens of milliseconds, long enough for the peer's timers to fire on every QP with a
     * message in flight.
     */
    void collectSetUpGarbage() {
        System.gc();
    }

    /** Bandwidth client: waits for the server's "ready" (see {@link #sendReady}). */
    void awaitReady() {
        Endpoint ep = eps.get(0);
        await(() -> ep.ready, "waiting for the server to finish its set-up", null);
    }

    /** SENDs {@link Endpoint#mine} to the peer. */
    void sendInfo(Endpoint ep) {
        ep.mine.encode(ep.ctrl.segment(), Endpoint.CTRL_MY_INFO);
        post(ep, "buffer message", () -> ep.qp.postSend(Wire.wrId(Wire.WR_INFO_SEND, ep.index, 0), ep.ctrl,
                Endpoint.CTRL_MY_INFO, BufferInfo.BYTES, QueuePair.SIGNALED), null);
    }

    /**
     * Learns the remote QPNs (for the header) from one statistics snapshot, by QPN (a scan of the endpoints per QP
     * took about a second of the client's set-up at 4,000 QPs).
     */
    void learnRemoteQpns() {
        Map<Integer, Endpoint> byQpn = new HashMap<>(eps.size() * 2);
        for (Endpoint ep : eps) {
            byQpn.put(ep.qp.qpn(), ep);
        }
        for (DeviceStats.QpStats q : device.stats().qps()) {
            Endpoint ep = byQpn.get(q.qpn());
            if (ep != null) {
                ep.remoteQpn = q.remoteQpn();
            }
        }
    }

    // ------------------------------------------------------------------ posting and polling

    void postRecv(Endpoint ep, int type, long seq, MemoryRegion mr, long off, int len) {
        int rc = ep.qp.postRecv(Wire.wrId(type, ep.index, seq), mr, off, len);
        while (rc == QueuePair.ENOMEM) { // the device's command queue is full: let it drain
            Thread.yield();
            checkDevice();
            rc = ep.qp.postRecv(Wire.wrId(type, ep.index, seq), mr, off, len);
        }
        if (rc != QueuePair.OK) {
            throw new PerfException(PerfException.ERROR, "posting a receive on QP " + hex(ep.qp.qpn()) + " failed: "
                    + errno(rc));
        }
    }

    /**
     * Posts with {@code op}; on ENOMEM (send queue or command queue full) polls completions into {@code h}
     * (null: only the session's own) and tries again.
     */
    void post(Endpoint ep, String what, IntSupplier op, Handler h) {
        while (true) {
            int rc = op.getAsInt();
            if (rc == QueuePair.OK) {
                return;
            }
            if (rc != QueuePair.ENOMEM) {
                throw new PerfException(PerfException.ERROR, "posting " + what + " on QP " + hex(ep.qp.qpn())
                        + " failed: " + errno(rc));
            }
            if (!pollOne(h)) {
                idle("posting " + what);
            }
        }
    }

    /**
     * Polls one completion: checks its status, handles the session's own kinds (buffer messages, done, bye)
     * and hands the rest to {@code h}. Returns false when there was none.
     */
    boolean pollOne(Handler h) {
        device.invoke(); // --agent inline: this thread runs the device's duty cycle (else a no-op)
        if (!cq.poll(wc)) {
            return false;
        }
        progress();
        if (wc.status() != WcStatus.SUCCESS) {
            if (finishing || !ours(wc.qpn())) {
                // (a QP of an earlier test of -a: its peer's close flushed its work after nextTest dropped the rest)
                return true;
            }
            throw new PerfException(PerfException.ERROR, describe(wc) + "; device statistics:\n" + safeStats());
        }
        Endpoint ep = eps.get(Wire.wrQp(wc.wrId()));
        int type = Wire.wrType(wc.wrId());
        if (type == Wire.WR_INFO_RECV) {
            try {
                ep.peer = BufferInfo.decode(ep.ctrl.segment(), Endpoint.CTRL_PEER_INFO);
            } catch (IllegalArgumentException e) {
                throw new PerfException(PerfException.ERROR, "the peer's buffer message is malformed: " + e.getMessage());
            }
            return true;
        }
        if (type == Wire.WR_INFO_SEND || type == Wire.WR_DONE_SEND || type == Wire.WR_READY_SEND) {
            return true;
        }
        if (type == Wire.WR_BYE_SEND) {
            ep.byeCompleted = true;
            return true;
        }
        if (wc.hasImmediate() && (type == Wire.WR_CTRL_RECV || type == Wire.WR_DATA_RECV)) {
            if (wc.immediate() == Wire.BYE_IMM) {
                ep.bye = true;
                return true;
            }
            if (wc.immediate() == Wire.READY_IMM && type == Wire.WR_CTRL_RECV) {
                ep.ready = true;
                long seq = Wire.wrSeq(wc.wrId()); // the receive it took is posted again: the bye comes to it
                postRecv(ep, Wire.WR_CTRL_RECV, seq, ep.ctrl,
                        Endpoint.ctrlRecvOffset((int) (seq % Endpoint.CTRL_RECV_SLOTS)), Endpoint.CTRL_RECV_SLOT);
                return true;
            }
            if (wc.immediate() == Wire.DONE_IMM) {
                long seq = Wire.wrSeq(wc.wrId());
                ep.done = type == Wire.WR_CTRL_RECV
                        ? Wire.Done.decode(ep.ctrl.segment(), Endpoint.ctrlRecvOffset((int) (seq % Endpoint.CTRL_RECV_SLOTS)))
                        : Wire.Done.decode(ep.data.segment(), seq * ep.recvSlotBytes);
                return true;
            }
        }
        if (h != null) {
            h.on(wc);
        }
        return true;
    }

    /** Polls until {@code done} holds, handing completions to {@code h}; fails after {@code --timeout} without progress. */
    void await(BooleanSupplier done, String what, Handler h) {
        while (!done.getAsBoolean()) {
            if (!pollOne(h)) {
                idle(what);
            }
        }
    }

    void progress() {
        lastProgressNs = System.nanoTime();
        poller.reset();
    }

    /** Nothing to do: wait a little, fail on a dead device or after {@code --timeout} without progress. */
    void idle(String what) {
        poller.idle();
        long now = System.nanoTime();
        if (now - lastProgressNs > o.timeoutNs() && !datagramsArrived()) {
            throw new PerfException(PerfException.ERROR, "no progress for " + o.timeoutS + " s while " + what
                    + "; device statistics:\n" + safeStats());
        }
        checkDevice();
    }

    /**
     * Whether the device received datagrams since the last look (a write-bw server completes nothing while the
     * client's data arrives: that is progress too); counts as progress if so. Asked once per --timeout period.
     */
    private boolean datagramsArrived() {
        long rx = device.rxDatagrams();
        boolean arrived = rx != lastRxDatagrams;
        lastRxDatagrams = rx;
        if (arrived) {
            progress();
        }
        return arrived;
    }

    private void checkDevice() {
        Throwable f = device.failure();
        if (f != null) {
            throw new PerfException(PerfException.ERROR, "the device's I/O agent failed: " + f, f);
        }
    }

    private String safeStats() {
        try {
            return device.stats().format();
        } catch (RuntimeException e) {
            return "(unavailable: " + e.getMessage() + ")";
        }
    }

    // ------------------------------------------------------------------ closing

    /** Client: SENDs "done" with this side's measurement on every QP, waits for every "bye", lingers. */
    void finishClient(Function<Endpoint, Wire.Done> report, Handler h) {
        for (Endpoint ep : eps) {
            report.apply(ep).encode(ep.ctrl.segment(), Endpoint.CTRL_DONE_SEND);
            post(ep, "done", () -> ep.qp.postSendImm(Wire.wrId(Wire.WR_DONE_SEND, ep.index, 0), ep.ctrl,
                    Endpoint.CTRL_DONE_SEND, Wire.Done.BYTES, Wire.DONE_IMM, QueuePair.SIGNALED), h);
            serviceDevice();
        }
        await(all(e -> e.bye), "waiting for the server's bye", h);
        finishing = true;
        long until = System.nanoTime() + LINGER_NS;
        while (System.nanoTime() - until < 0) {
            if (!pollOne(h)) {
                poller.idle();
            }
        }
        Teardown.closeOpen(device, eps, err, kind.id());
    }

    /** Server: waits for "done" on every QP, answers "bye" and waits (bounded) for the bye to be acknowledged. */
    void finishServer(Handler h) {
        await(all(e -> e.done != null), "waiting for the client's done", h);
        for (Endpoint ep : eps) {
            post(ep, "bye", () -> ep.qp.postSendImm(Wire.wrId(Wire.WR_BYE_SEND, ep.index, 0), ep.ctrl,
                    Endpoint.CTRL_BYE_SEND, 8, Wire.BYE_IMM, QueuePair.SIGNALED), h);
            serviceDevice();
        }
        finishing = true;
        long until = System.nanoTime() + Math.min(BYE_WAIT_NS, o.timeoutNs());
        BooleanSupplier byesCompleted = all(e -> e.byeCompleted);
        while (!byesCompleted.getAsBoolean() && System.nanoTime() - until < 0) {
            if (!pollOne(h)) {
                poller.idle();
            }
        }
        // the client closes each connection after its linger (CM_DREQ); one it does not close, the server closes
        until = System.nanoTime() + Math.min(BYE_WAIT_NS, o.timeoutNs());
        BooleanSupplier allClosed = all(e -> e.qp.state() == QpState.ERROR);
        while (!allClosed.getAsBoolean()
                && System.nanoTime() - until < 0) {
            if (!pollOne(h)) {
                poller.idle();
            }
        }
        Teardown.closeOpen(device, eps, err, kind.id());
    }

    /** The connection manager's counters ({@code CmCounter} names). */
    java.util.Map<String, Long> cmCounters() {
        return device.cmCounters();
    }

    // ------------------------------------------------------------------ output

    DeviceStats stats() {
        return device.stats();
    }

    /** The engine's counters alone: cheap at any number of QPs (a whole {@link #stats()} is not). */
    java.util.Map<io.metaroce.core.Counter, Long> counters() {
        return device.counters();
    }

    /** The perftest-style header block ({@link HeaderBlock}). */
    void printHeader(String latencyNote) {
        HeaderBlock.print(out, kind, o, device, eps, latencyNote);
    }

    static String hex(int v) {
        return String.format(Locale.ROOT, "0x%06x", v);
    }

    private static String errno(int rc) {
        return switch (rc) {
            case QueuePair.EINVAL -> "EINVAL (bad arguments, or the QP is not connected)";
            case QueuePair.ENOMEM -> "ENOMEM";
            default -> "error " + rc;
        };
    }

    private String describe(WorkCompletion c) {
        String what = switch (Wire.wrType(c.wrId())) {
            case Wire.WR_INFO_RECV -> "receive of the buffer message";
            case Wire.WR_INFO_SEND -> "buffer message";
            case Wire.WR_DATA -> kind.id() + " message " + Wire.wrSeq(c.wrId());
            case Wire.WR_DATA_RECV, Wire.WR_CTRL_RECV -> "receive";
            case Wire.WR_DONE_SEND -> "done message";
            case Wire.WR_BYE_SEND -> "bye message";
            default -> "work request " + c.wrId();
        };
        String hint = switch (c.status()) {
            case REM_ACCESS_ERR, REM_INV_REQ_ERR -> ": the peer refused the access (message beyond its buffer? run both "
                    + "sides with the same -s and test)";
            case RNR_RETRY_EXC_ERR -> ": the peer had no receive posted (is it running the same test?)";
            case RETRY_EXC_ERR -> ": the peer stopped answering (did it exit? is the loss too high?)";
            case LOC_LEN_ERR -> ": a message did not fit the receive buffer (run both sides with the same -s)";
            case LOC_QP_OP_ERR -> ": the device refused the post";
            case WR_FLUSH_ERR -> ": the QP went to the error state";
            default -> "";
        };
        return "work completion error on QP " + hex(c.qpn()) + ": " + what + " (" + c.opcode() + ") completed with "
                + c.status() + hint;
    }

    @Override
    public void close() {
        try {
            if (metrics != null) {
                metrics.close();
            }
            if (statsWriter != null) {
                statsWriter.close();
            }
        } finally {
            device.close();
            arena.close();
        }
    }
}
