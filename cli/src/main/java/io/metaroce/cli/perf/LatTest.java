package io.metaroce.cli.perf;

import io.metaroce.net.BufferInfo;
import io.metaroce.core.WorkCompletion;
import io.metaroce.core.QueuePair;
import org.HdrHistogram.Histogram;

import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * write-lat and send-lat: ping-pong on one QP. write-lat: the client RDMA-WRITEs {@code -s} bytes into the
 * server's buffer with an immediate (the server needs a completion to know the data is there, where perftest
 * polls the last byte), the server answers the same way into the client's buffer. send-lat: SEND both ways. The
 * client times each round trip from its post to the pong's receive completion and records RTT/2, the one-way
 * latency perftest reports, in an HdrHistogram of nanoseconds.
 */
final class LatTest {
    /** Receives each side keeps posted. */
    static final int RECVS = 16;
    static final String NOTE = "one-way = RTT/2 of each ping-pong (as ib_write_lat/ib_send_lat report), HdrHistogram";

    private final Session s;
    private final PerfOptions o;
    private final TestKind kind;
    private final int size;
    private final int slotLen;
    private boolean gotPong;
    private int pongImm;
    private long pings;
    // The message being posted (a ping, or the server's pong) and the post and wait that read it: made once, so
    // that a ping-pong allocates nothing (a lambda and a string per message made a young collection every few
    // seconds, and its pause showed in the tail of the latency).
    private Endpoint postEp;
    private long postSeq;
    private int postLen;
    private int postImm;
    private final IntSupplier postMessage = () -> post(postEp, postSeq, postLen, postImm);
    private final BooleanSupplier pongArrived = () -> gotPong;

    LatTest(Session s) {
        this.s = s;
        this.o = s.o;
        this.kind = s.kind;
        this.size = o.size();
        this.slotLen = Math.max(size, Wire.Done.BYTES * 2);
    }

    Result run() {
        return o.server() ? server() : client();
    }

    /** Data region and receives of either side; the buffer message names the WRITE target or one receive slot. */
    private void setUp(Endpoint ep, int side) {
        int seed = Pattern.seedFor(o.seed, side, ep.index);
        if (kind == TestKind.WRITE_LAT) {
            ep.data = s.register(s.allocate(slotLen));
            ep.mine = new BufferInfo(ep.data.address(), size, ep.data.rkey(), seed);
            for (int i = 0; i < RECVS; i++) {
                s.postRecv(ep, Wire.WR_CTRL_RECV, i, ep.ctrl, Endpoint.ctrlRecvOffset(i), Endpoint.CTRL_RECV_SLOT);
            }
        } else {
            ep.data = s.register(s.allocate((long) (RECVS + 1) * slotLen)); // RECVS receive slots, then the send source
            ep.recvSlotBytes = slotLen;
            ep.mine = new BufferInfo(ep.data.address(), slotLen, ep.data.rkey(), seed);
            for (int i = 0; i < RECVS; i++) {
                s.postRecv(ep, Wire.WR_DATA_RECV, i, ep.data, (long) i * slotLen, slotLen);
            }
        }
        Pattern.fill(ep.data.segment().asSlice(kind == TestKind.WRITE_LAT ? 0 : (long) RECVS * slotLen, size), seed);
    }

    private void repost(Endpoint ep, WorkCompletion wc) {
        int slot = (int) Wire.wrSeq(wc.wrId());
        if (Wire.wrType(wc.wrId()) == Wire.WR_CTRL_RECV) {
            s.postRecv(ep, Wire.WR_CTRL_RECV, slot, ep.ctrl, Endpoint.ctrlRecvOffset(slot), Endpoint.CTRL_RECV_SLOT);
        } else {
            s.postRecv(ep, Wire.WR_DATA_RECV, slot, ep.data, (long) slot * slotLen, slotLen);
        }
    }

    private static boolean isRecv(WorkCompletion wc) {
        int t = Wire.wrType(wc.wrId());
        return t == Wire.WR_CTRL_RECV || t == Wire.WR_DATA_RECV;
    }

    /** Posts one ping or pong of {@code len} bytes (imm: the sequence, for write-lat). */
    private int post(Endpoint ep, long seq, int len, int imm) {
        long wr = Wire.wrId(Wire.WR_DATA, ep.index, seq);
        return kind == TestKind.WRITE_LAT
                ? ep.qp.postWriteImm(wr, ep.data, 0, len, ep.peer.address(), ep.peer.rkey(), imm, QueuePair.SIGNALED)
                : ep.qp.postSend(wr, ep.data, (long) RECVS * slotLen, len, QueuePair.SIGNALED);
    }

    // ------------------------------------------------------------------ client

    private Result client() {
        s.connectAll();
        s.awaitPeerInfo(null);
        Endpoint ep = s.eps.get(0);
        if (ep.peer.length() < size) {
            throw new PerfException(PerfException.ERROR, "the server's " + (kind == TestKind.WRITE_LAT ? "buffer"
                    : "receive buffers") + " hold " + ep.peer.length() + " bytes, less than one " + size
                    + "-byte message: run both sides with the same -s");
        }
        setUp(ep, 0);
        s.sendInfo(ep);
        s.learnRemoteQpns();
        s.printHeader(NOTE);

        Session.Handler h = wc -> {
            if (isRecv(wc)) {
                gotPong = true;
                pongImm = wc.immediate();
                repost(ep, wc);
            }
        };
        Histogram hist = new Histogram(3);
        long target = o.iters != null ? o.iters : Long.MAX_VALUE;
        long durationNs = o.durationS != null && !o.runInfinitely ? (long) (o.durationS * 1e9) : Long.MAX_VALUE;
        long reportNs = o.runInfinitely ? Report.infiniteIntervalNs(o) : Long.MAX_VALUE;
        long seq = 0;
        long warmStart = System.nanoTime();
        for (; seq < o.warmup; seq++) {
            if (o.warmupDefaulted && System.nanoTime() - warmStart > PerfOptions.LATENCY_WARMUP_LIMIT_NS) {
                break; // the default warm-up is also bounded in time (large messages, -a)
            }
            pingPong(ep, seq, h);
        }
        long start = System.nanoTime();
        long intervalStart = start;
        long intervalFirst = 0;
        long i = 0;
        for (; i < target && System.nanoTime() - start < durationNs
                && !(o.runInfinitely && Thread.interrupted()); i++) {
            long rttNs = pingPong(ep, seq++, h);
            hist.recordValue(Math.max(1, rttNs / 2));
            if (System.nanoTime() - intervalStart >= reportNs) { // --run_infinitely: a line per interval
                o.tableGoesOn = true;
                Report.lat(s.out, o, size, i + 1 - intervalFirst, hist);
                o.continuesTable = true;
                hist.reset();
                intervalStart = System.nanoTime();
                intervalFirst = i + 1;
            }
        }
        long elapsedNs = Math.max(1, System.nanoTime() - start);
        long n = i;
        if (o.runInfinitely) { // stopped: the last interval's line closes the table
            o.tableGoesOn = false;
        }
        s.finishClient(e -> new Wire.Done(n, elapsedNs, size, 0), h);

        Report.lat(s.out, o, size, n - intervalFirst, hist); // --run_infinitely: the last interval
        Result r = new Result();
        r.iters = n;
        r.metrics.put("lat_min_us", Report.us(hist.getMinValue()));
        r.metrics.put("lat_p25_us", Report.us(hist.getValueAtPercentile(25)));
        r.metrics.put("lat_p50_us", Report.us(hist.getValueAtPercentile(50)));
        r.metrics.put("lat_p75_us", Report.us(hist.getValueAtPercentile(75)));
        r.metrics.put("lat_p90_us", Report.us(hist.getValueAtPercentile(90)));
        r.metrics.put("lat_p99_us", Report.us(hist.getValueAtPercentile(99)));
        r.metrics.put("lat_p999_us", Report.us(hist.getValueAtPercentile(99.9)));
        r.metrics.put("lat_p9999_us", Report.us(hist.getValueAtPercentile(99.99)));
        r.metrics.put("lat_max_us", Report.us(hist.getMaxValue()));
        r.metrics.put("lat_avg_us", hist.getMean() / 1e3);
        r.metrics.put("messages", n);
        r.metrics.put("msg_rate_mpps", n / (elapsedNs / 1e9) / 1e6);
        return r;
    }

    /** One ping and its pong; returns the round trip, ns (post to the pong's receive completion). */
    private long pingPong(Endpoint ep, long seq, Session.Handler h) {
        gotPong = false;
        int imm = (int) (seq & 0x3FFF_FFFF);
        long t0 = System.nanoTime();
        postEp = ep;
        postSeq = seq;
        postLen = size;
        postImm = imm;
        s.post(ep, "ping", postMessage, h);
        s.await(pongArrived, "waiting for the pong", h);
        long t1 = System.nanoTime();
        if (kind == TestKind.WRITE_LAT && pongImm != imm) {
            throw new PerfException(PerfException.ERROR, "pong " + pongImm + " answered ping " + imm);
        }
        return t1 - t0;
    }

    // ------------------------------------------------------------------ server

    private Result server() {
        s.acceptAll(ep -> setUp(ep, 1));
        Endpoint ep = s.eps.get(0);
        Session.Handler h = wc -> {
            if (isRecv(wc)) { // a ping: answer it with the same length (and sequence)
                postEp = ep;
                postSeq = pings++;
                postLen = kind == TestKind.WRITE_LAT ? size : wc.byteLen();
                postImm = wc.immediate();
                repost(ep, wc);
                // ENOMEM cannot last here (one ping at a time), so a retry need not dispatch completions
                s.post(ep, "pong", postMessage, null);
            }
        };
        s.await(() -> ep.peer != null, "waiting for the client's buffer message", h);
        s.learnRemoteQpns();
        s.printHeader(NOTE);
        s.finishServer(h);
        s.out.printf(" answered %d pings of %d bytes (warm-up included); the client measures the latency%n", pings,
                ep.done.size());
        if (!o.tableGoesOn) {
            s.out.println(Report.DASH);
        }
        s.out.flush();
        Result r = new Result();
        r.iters = pings;
        r.size = ep.done.size();
        r.metrics.put("messages", pings);
        return r;
    }
}
