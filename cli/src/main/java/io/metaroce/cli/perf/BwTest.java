package io.metaroce.cli.perf;

import io.metaroce.net.BufferInfo;
import io.metaroce.core.WorkCompletion;
import io.metaroce.core.QueuePair;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Locale;

/**
 * write-bw, send-bw and read-bw. The client keeps {@code -t} signaled work requests outstanding per QP, each
 * moving one {@code -s} message between matching slots of its buffer and the server's (slots cycle, at most
 * {@code -t} of them and at most 16 MiB per QP); it measures from its first post to its last completion. The
 * server is passive for WRITE and READ and keeps {@code -r} receives posted for SEND, reposting each as it
 * completes; it prints the client's measurement (write-bw, read-bw) or its own (send-bw).
 */
final class BwTest {
    /** Largest data buffer per QP, bytes: slots beyond it are not allocated. */
    static final long MAX_SLOT_BYTES = 16 << 20;

    private final Session s;
    private final PerfOptions o;
    private final TestKind kind;
    private final int size;
    private Sampler sampler = new Sampler();
    private long messages;
    /** send-bw server: payload bytes received. */
    private long receivedBytes;
    /** Client: QPs that may have room for another post, each once. */
    private final ArrayDeque<Endpoint> postable = new ArrayDeque<>();
    /** Client: data messages posted and not completed, over every QP. */
    private long outstanding;
    /** Client: QPs that posted their {@code -n} messages. */
    private int reachedTarget;
    /** Client: messages per QP ({@code -n}), or unbounded. */
    private long target = Long.MAX_VALUE;
    private long firstNs;
    private long lastNs;
    /** Whether the {@code --omit} time is over (or there is none): completions count from then on. */
    private boolean measuring;
    /** send-bw server: when the first message arrived (its {@code --omit} time runs from there). */
    private long serverStartNs = -1;
    /** The counters when --omit ended (client): the record's *_after_omit figures. */
    private final CountersAfterOmit afterOmit = new CountersAfterOmit();
    private String mismatch;

    BwTest(Session s) {
        this.s = s;
        this.o = s.o;
        this.kind = s.kind;
        this.size = o.size();
    }

    static int slotsFor(int size, int txDepth) {
        return (int) Math.max(1, Math.min(txDepth, MAX_SLOT_BYTES / size));
    }

    Result run() {
        return o.server() ? server() : client();
    }

    // ------------------------------------------------------------------ client

    private Result client() {
        s.connectAll();
        s.awaitPeerInfo(null);
        for (Endpoint ep : s.eps) {
            int local = slotsFor(size, o.txDepth);
            if (kind == TestKind.SEND_BW) {
                if (ep.peer.length() < size) {
                    throw new PerfException(PerfException.ERROR, "the server's receive buffers hold " + ep.peer.length()
                            + " bytes, less than one " + size + "-byte message: run both sides with the same -s");
                }
                ep.slots = local;
            } else {
                long remote = ep.peer.length() / size;
                if (remote == 0) {
                    throw new PerfException(PerfException.ERROR, "the server's buffer holds " + ep.peer.length()
                            + " bytes, less than one " + size + "-byte message: run both sides with the same -s");
                }
                ep.slots = (int) Math.min(local, remote);
            }
            MemorySegment seg = s.allocate((long) ep.slots * size);
            int seed = Pattern.seedFor(o.seed, 0, ep.index);
            if (kind != TestKind.READ_BW) {
                Pattern.fill(seg, seed);
            }
            ep.data = s.register(seg);
            ep.mine = new BufferInfo(ep.data.address(), (long) ep.slots * size, ep.data.rkey(), seed);
            s.postRecv(ep, Wire.WR_CTRL_RECV, 0, ep.ctrl, Endpoint.ctrlRecvOffset(0), Endpoint.CTRL_RECV_SLOT);
            s.sendInfo(ep);
            s.serviceDevice();
        }
        s.awaitReady();
        s.collectSetUpGarbage();
        s.learnRemoteQpns();
        s.printHeader(null);

        target = o.iters != null ? o.iters : Long.MAX_VALUE;
        long durationNs = o.durationS != null && !o.runInfinitely ? (long) (o.durationS * 1e9) : Long.MAX_VALUE;
        long reportNs = o.runInfinitely ? Report.infiniteIntervalNs(o) : Long.MAX_VALUE;
        Session.Handler h = this::onClientCompletion;
        for (Endpoint ep : s.eps) {
            ep.postable = true;
            postable.add(ep);
        }
        long omitNs = o.omitNs();
        firstNs = System.nanoTime();
        lastNs = firstNs;
        sampler.start(firstNs);
        measuring = omitNs == 0;
        long intervalStart = firstNs;
        long intervalMessages = 0;
        String running = "running " + kind.id(); // made once: the loop idles millions of times
        while (true) {
            if (o.runInfinitely && Thread.interrupted()) {
                durationNs = 0; // stopped (Ctrl-C): finish what is in flight, then close as a -D run does
                reportNs = Long.MAX_VALUE;
                omitNs = 0; // also during --omit: stop now, not when the omission would have ended
            }
            long now = System.nanoTime();
            if (!measuring && now - firstNs >= omitNs) { // --omit is over: every figure starts again from here
                measuring = true;
                afterOmit.mark(s.counters());
                for (Endpoint ep : s.eps) {
                    ep.omitted = ep.completed;
                }
                messages = 0;
                firstNs = now;
                lastNs = now;
                sampler = new Sampler();
                sampler.start(now);
                intervalStart = now;
            }
            if (measuring && now - intervalStart >= reportNs) { // --run_infinitely: a line per interval, then a fresh one
                long n = messages - intervalMessages;
                double avg = n * (double) size * 8e9 / (now - intervalStart);
                o.tableGoesOn = true;
                Report.bw(s.out, o, size, n, sampler.peakBps(avg), avg, n / ((now - intervalStart) / 1e9) / 1e6, null);
                o.continuesTable = true;
                sampler = new Sampler();
                sampler.start(now);
                intervalStart = now;
                intervalMessages = messages;
            }
            boolean postingOver = measuring && System.nanoTime() - firstNs >= durationNs;
            int work = 0;
            // only the QPs that completed something since they last filled their depth are visited: with thousands
            // of QPs a scan of all of them per round was the client's main cost
            for (int k = postable.size(); k > 0 && !postingOver; k--) {
                Endpoint ep = postable.poll();
                ep.postable = false;
                while (ep.posted < target && ep.posted - ep.completed < o.txDepth) {
                    int rc = postData(ep);
                    if (rc == QueuePair.ENOMEM) {
                        if (ep.posted == ep.completed) {
                            ep.postable = true; // nothing of its own to complete: try again next round
                            postable.add(ep);
                        }
                        break; // otherwise its next completion makes room and queues it again
                    }
                    if (rc != QueuePair.OK) {
                        throw new PerfException(PerfException.ERROR, "posting a " + kind.id() + " message failed: "
                                + (rc == QueuePair.EINVAL ? "EINVAL" : "error " + rc));
                    }
                    ep.posted++;
                    outstanding++;
                    work++;
                }
                if (ep.posted >= target) {
                    reachedTarget++;
                }
            }
            while (s.pollOne(h)) {
                work++;
            }
            if (outstanding == 0 && (postingOver || reachedTarget == s.eps.size())) {
                break;
            }
            if (work > 0) {
                s.progress();
            } else {
                s.idle(running);
            }
        }
        long elapsedNs = Math.max(1, lastNs - firstNs);
        double avgBps = messages * (double) size * 8e9 / elapsedNs;
        double peakBps = sampler.peakBps(avgBps);
        s.finishClient(ep -> new Wire.Done(ep.completed - ep.omitted, elapsedNs, size, (long) peakBps), h);

        Result r = new Result();
        r.iters = o.iters != null ? o.iters : messages; // -D: the total over all QPs
        if (o.runInfinitely) {
            o.tableGoesOn = false; // the whole run's line closes the table
        }
        Report.bw(s.out, o, size, r.iters, peakBps, avgBps, messages / (elapsedNs / 1e9) / 1e6,
                o.runInfinitely ? String.format(Locale.ROOT, "(the whole run: %.1f s)", elapsedNs / 1e9) : null);
        fill(r, avgBps, peakBps, elapsedNs);
        afterOmit.fill(r.metrics, s.counters());
        if (o.verify && kind == TestKind.READ_BW) {
            verifyRead(r);
        } else if (o.verify) {
            s.out.println(" --verify: the server checks " + kind.id() + " data");
        }
        return r;
    }

    private int postData(Endpoint ep) {
        long slot = ep.posted % ep.slots;
        long off = slot * size;
        long wr = Wire.wrId(Wire.WR_DATA, ep.index, ep.posted);
        return switch (kind) {
            case WRITE_BW -> ep.qp.postWrite(wr, ep.data, off, size, ep.peer.address() + off, ep.peer.rkey(), QueuePair.SIGNALED);
            case READ_BW -> ep.qp.postRead(wr, ep.data, off, size, ep.peer.address() + off, ep.peer.rkey(), QueuePair.SIGNALED);
            case SEND_BW -> ep.qp.postSend(wr, ep.data, off, size, QueuePair.SIGNALED);
            default -> throw new IllegalStateException(kind.id());
        };
    }

    private void onClientCompletion(WorkCompletion wc) {
        if (Wire.wrType(wc.wrId()) == Wire.WR_DATA) {
            Endpoint ep = s.eps.get(Wire.wrQp(wc.wrId()));
            ep.completed++;
            outstanding--;
            messages++;
            if (!ep.postable && ep.posted < target) {
                ep.postable = true;
                postable.add(ep);
            }
            long now = System.nanoTime();
            lastNs = now;
            sampler.add(size, now);
        }
    }

    private void verifyRead(Result r) {
        r.verified = true;
        for (Endpoint ep : s.eps) {
            long n = Math.min(ep.completed, ep.slots) * size;
            long at = Pattern.mismatch(ep.data.segment(), 0, n, ep.peer.tag(), 0);
            if (at >= 0) {
                r.verifyFailure = String.format(Locale.ROOT, "data mismatch: QP %d read slot %d differs from the "
                        + "server's pattern at byte %d", ep.index, at / size, at % size);
                s.out.println(" " + r.verifyFailure);
                return;
            }
        }
        s.out.println(" data verified (" + kind.id() + ": every slot read matches the server's pattern)");
        s.out.flush();
    }

    // ------------------------------------------------------------------ server

    private Result server() {
        s.acceptAll(this::setUpServer);
        Session.Handler h = this::onServerCompletion;
        s.await(s.all(e -> e.peer != null), "waiting for the client's buffer message", h);
        s.learnRemoteQpns();
        s.printHeader(null);
        s.collectSetUpGarbage();
        s.sendReady();
        s.finishServer(h);

        Result r = new Result();
        if (kind == TestKind.SEND_BW) {
            long elapsedNs = Math.max(1, lastNs - firstNs);
            double avgBps = receivedBytes * 8e9 / elapsedNs;
            double peakBps = sampler.peakBps(avgBps);
            r.iters = clientIters();
            r.size = s.eps.get(0).done.size();
            Report.bw(s.out, o, s.eps.get(0).done.size(), r.iters, peakBps, avgBps,
                    messages / (elapsedNs / 1e9) / 1e6, "(measured at the server: first to last receive completion)");
            fill(r, avgBps, peakBps, elapsedNs);
        } else {
            long total = 0;
            long elapsedNs = 1;
            double peakBps = 0;
            long doneSize = size;
            for (Endpoint ep : s.eps) {
                total += ep.done.messages();
                elapsedNs = Math.max(elapsedNs, ep.done.elapsedNs());
                // Every QP's DONE carries the client's peak over all its QPs: take it once, not once per QP.
                peakBps = Math.max(peakBps, ep.done.peakBps());
                doneSize = ep.done.size();
            }
            messages = total;
            double avgBps = total * (double) doneSize * 8e9 / elapsedNs;
            r.iters = clientIters();
            r.size = doneSize;
            Report.bw(s.out, o, doneSize, r.iters, peakBps, avgBps, total / (elapsedNs / 1e9) / 1e6,
                    "(as measured by the client)");
            fill(r, avgBps, peakBps, elapsedNs);
            if (o.verify && kind == TestKind.WRITE_BW) {
                verifyWrite(r);
            }
        }
        if (o.verify && kind == TestKind.SEND_BW) {
            r.verified = true;
            r.verifyFailure = mismatch;
            s.out.println(mismatch == null ? " data verified (send-bw: every message received matches the client's "
                    + "pattern)" : " " + mismatch);
        } else if (o.verify && kind == TestKind.READ_BW) {
            s.out.println(" --verify: the client checks read-bw data");
        }
        s.out.flush();
        return r;
    }

    /** The client's iterations: its per-QP count when every QP did the same (its -n), else the total. */
    private long clientIters() {
        long first = s.eps.get(0).done.messages();
        long total = 0;
        boolean same = true;
        for (Endpoint ep : s.eps) {
            same &= ep.done.messages() == first;
            total += ep.done.messages();
        }
        return same ? first : total;
    }

    private void setUpServer(Endpoint ep) {
        int seed = Pattern.seedFor(o.seed, 1, ep.index);
        if (kind == TestKind.SEND_BW) {
            int rx = o.rxDepthValue();
            int slotLen = Math.max(size, Wire.Done.BYTES * 2);
            ep.recvSlotBytes = slotLen;
            ep.slots = rx;
            ep.data = s.register(s.allocate((long) rx * slotLen));
            ep.mine = new BufferInfo(ep.data.address(), slotLen, ep.data.rkey(), seed);
            for (int i = 0; i < rx; i++) {
                s.postRecv(ep, Wire.WR_DATA_RECV, i, ep.data, (long) i * slotLen, slotLen);
            }
        } else {
            ep.slots = slotsFor(size, o.txDepth);
            MemorySegment seg = s.allocate((long) ep.slots * size);
            if (kind == TestKind.READ_BW) {
                Pattern.fill(seg, seed);
            }
            ep.data = s.register(seg);
            ep.mine = new BufferInfo(ep.data.address(), (long) ep.slots * size, ep.data.rkey(), seed);
            s.postRecv(ep, Wire.WR_CTRL_RECV, 0, ep.ctrl, Endpoint.ctrlRecvOffset(0), Endpoint.CTRL_RECV_SLOT);
        }
    }

    private void onServerCompletion(WorkCompletion wc) {
        if (Wire.wrType(wc.wrId()) != Wire.WR_DATA_RECV) {
            return;
        }
        Endpoint ep = s.eps.get(Wire.wrQp(wc.wrId()));
        int slot = (int) Wire.wrSeq(wc.wrId());
        long now = System.nanoTime();
        if (serverStartNs < 0) {
            serverStartNs = now;
        }
        if (now - serverStartNs >= o.omitNs()) { // what arrives during --omit is checked, not measured
            if (messages == 0) {
                firstNs = now;
                sampler.start(now);
            }
            messages++;
            receivedBytes += wc.byteLen();
            lastNs = now;
            sampler.add(wc.byteLen(), now);
        }
        long k = ep.dataReceived++;
        if (o.verify && mismatch == null && ep.peer != null) {
            int len = wc.byteLen();
            long used = Math.max(1, ep.peer.length() / Math.max(1, len));
            long at = Pattern.mismatch(ep.data.segment(), (long) slot * ep.recvSlotBytes, len, ep.peer.tag(),
                    (k % used) * len);
            if (at >= 0) {
                mismatch = String.format(Locale.ROOT, "data mismatch: QP %d message %d differs from the client's "
                        + "pattern at byte %d", ep.index, k, at);
            }
        }
        s.postRecv(ep, Wire.WR_DATA_RECV, slot, ep.data, (long) slot * ep.recvSlotBytes, ep.recvSlotBytes);
    }

    private void verifyWrite(Result r) {
        r.verified = true;
        for (Endpoint ep : s.eps) {
            long used = ep.peer.length() / ep.done.size();
            long n = Math.min(ep.done.messages(), used) * ep.done.size();
            long at = Pattern.mismatch(ep.data.segment(), 0, n, ep.peer.tag(), 0);
            if (at >= 0) {
                r.verifyFailure = String.format(Locale.ROOT, "data mismatch: QP %d slot %d differs from the client's "
                        + "pattern at byte %d", ep.index, at / ep.done.size(), at % ep.done.size());
                s.out.println(" " + r.verifyFailure);
                return;
            }
        }
        s.out.println(" data verified (write-bw: every slot written matches the client's pattern)");
    }

    private void fill(Result r, double avgBps, double peakBps, long elapsedNs) {
        r.metrics.put("goodput_gbps", avgBps / 1e9);
        r.metrics.put("bw_peak_gbps", peakBps / 1e9);
        r.metrics.put("msg_rate_mpps", messages / (elapsedNs / 1e9) / 1e6);
        r.metrics.put("messages", messages);
        r.metrics.put("elapsed_s", elapsedNs / 1e9);
    }
}
