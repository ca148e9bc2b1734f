package io.metaroce.net;

import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.Transmit;
import io.metaroce.core.WcOpcode;
import io.metaroce.core.WcStatus;
import io.metaroce.core.wire.Opcode;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A MetaRoCE device on real UDP sockets: the public entry point of the real datapath. It owns one
 * {@link Engine}, one receive socket per plane (bound to the plane's address and the protocol port) and one
 * send socket per path (bound to the path's plane address; its source port is the path's ECMP entropy), and
 * one I/O agent thread that runs the engine in an Aeron-style duty cycle: take application commands from a
 * lock-free queue, receive a batch per plane (recvmmsg), feed the engine, fire timers, drain transmits into a
 * batch, send it (sendmmsg per path socket), publish completions to lock-free rings.
 *
 * <p>Application threads never touch the engine: control calls ({@link #allocPd}, {@link #registerMemory},
 * {@link #createCq}, {@link #createQp}, {@link #connect}, {@link #stats}) run on the agent and wait for it;
 * posts and completion polls ({@link DeviceQp}, {@link DeviceCq}) never block.
 */
public final class Device implements AutoCloseable {
    private static final long CALL_TIMEOUT_MS = 10_000;

    private final DeviceOptions opts;
    private final EngineConfig cfg;
    private final Engine engine;
    private final UdpSocket[] rxSockets;
    private final UdpSocket[] txSockets;
    private final PacketBatch rxBatch;
    private final PacketBatch txBatch;
    private final int[][] txBySocket;
    private final int[] txCountBySocket;
    private final int[] planeAddr;
    private final int port;
    private final Arena arena = Arena.ofShared();
    private final MpscAtomicArrayQueue<Runnable> commands = new MpscAtomicArrayQueue<>(1 << 16);
    private final List<DeviceCq> cqs = new ArrayList<>();
    private final List<DeviceQp> qps = new ArrayList<>();
    private final List<int[]> peers = new ArrayList<>(); // per peer: plane addresses..., port last
    private final Transmit tx = new Transmit();
    private final SplittableRandom lossRng;
    private final ConnectionManager cm;
    private final IdleStrategy idle;
    private final Waiter waiter;
    private volatile boolean sleeping;
    private volatile Thread agentThread;
    private long nextDeadlineNs = Engine.NO_DEADLINE;
    private volatile boolean closed;
    private volatile Throwable failure;

    // datapath statistics (agent thread writes, others read)
    volatile long rxDatagrams;
    volatile long txDatagrams;
    volatile long txSendDrops;
    volatile long injectedDrops;
    volatile long cmPackets;
    volatile long dutyCycles;
    volatile long rejectedPosts;

    private Device(DeviceOptions o) throws IOException {
        this.opts = o;
        if (o.planes.isEmpty()) {
            throw new IllegalArgumentException("a device needs at least one plane address");
        }
        this.cfg = o.engine.copy().planes(o.planes.size());
        if (cfg.paths < cfg.planes) {
            cfg.paths(cfg.planes);
        }
        this.engine = new Engine(cfg, new SplittableRandom(o.seed));
        this.lossRng = new SplittableRandom(o.seed ^ 0x5DEECE66DL);
        int slot = Math.max(engine.maxDatagramLength(), 2048);
        this.rxSockets = new UdpSocket[cfg.planes];
        this.txSockets = new UdpSocket[cfg.paths];
        this.planeAddr = new int[cfg.planes];
        int boundPort = o.port;
        try {
            for (int p = 0; p < cfg.planes; p++) {
                InetAddress a = o.planes.get(p);
                planeAddr[p] = Ipv4.of(a);
                rxSockets[p] = open(new InetSocketAddress(a, boundPort), o.gro);
                if (boundPort == 0) {
                    boundPort = rxSockets[p].localAddress().getPort(); // every plane on the same port
                }
            }
            for (int i = 0; i < cfg.paths; i++) {
                txSockets[i] = openTx(new InetSocketAddress(o.planes.get(i % cfg.planes), 0));
            }
        } catch (IOException | RuntimeException e) {
            closeSockets();
            throw e;
        }
        this.port = boundPort;
        boolean gro = rxSockets[0].gro();
        this.rxBatch = new PacketBatch(arena, o.batch, gro ? 65_536 : slot);
        this.txBatch = new PacketBatch(arena, o.batch, slot);
        this.txBySocket = new int[cfg.paths][o.batch];
        this.txCountBySocket = new int[cfg.paths];
        this.cm = new ConnectionManager(this);
        this.idle = IdleStrategy.of(o.idle);
        Waiter w = null;
        if (o.idle == DeviceOptions.Idle.BLOCK && Waiter.available() && rxSockets[0] instanceof LinuxUdp) {
            int[] fds = new int[rxSockets.length];
            for (int p = 0; p < fds.length; p++) {
                fds[p] = ((LinuxUdp) rxSockets[p]).fd();
            }
            w = new Waiter(fds);
        }
        this.waiter = w;
        IoAgent agent = new IoAgent();
        Thread t = new Thread(() -> agent.run(), o.name + "-io");
        t.setDaemon(true);
        agentThread = t;
        t.start();
    }

    private UdpSocket open(InetSocketAddress at, boolean gro) throws IOException {
        return switch (opts.transport) {
            case CHANNEL -> new ChannelUdp(at, opts.socketBufferBytes);
            case FFM -> new LinuxUdp(at, opts.socketBufferBytes, gro, false);
            case AUTO -> LinuxUdp.unavailableReason() == null
                    ? new LinuxUdp(at, opts.socketBufferBytes, gro, false)
                    : new ChannelUdp(at, opts.socketBufferBytes);
        };
    }

    private UdpSocket openTx(InetSocketAddress at) throws IOException {
        boolean ffm = opts.transport == DeviceOptions.Transport.FFM
                || opts.transport == DeviceOptions.Transport.AUTO && LinuxUdp.unavailableReason() == null;
        return ffm ? new LinuxUdp(at, opts.socketBufferBytes, false, false, opts.gso)
                : new ChannelUdp(at, opts.socketBufferBytes);
    }

    /** Opens a device: binds its sockets and starts its agent thread. */
    public static Device open(DeviceOptions options) throws IOException {
        return new Device(options);
    }

    /** "ffm" or "channel": which datapath the sockets use. */
    public String transportName() {
        return rxSockets[0] instanceof LinuxUdp ? "ffm (sendmmsg/recvmmsg, ECN)" : "channel (portable, ECN-blind)";
    }

    /** The UDP port every plane receives on. */
    public int port() {
        return port;
    }

    /** The plane addresses, with the port, in plane order. */
    public List<InetSocketAddress> planeAddresses() {
        List<InetSocketAddress> l = new ArrayList<>();
        for (int a : planeAddr) {
            l.add(new InetSocketAddress(Ipv4.address(a), port));
        }
        return l;
    }

    /** The engine configuration in force (planes from the addresses). */
    public EngineConfig config() {
        return cfg.copy();
    }

    // ------------------------------------------------------------------ control calls (run on the agent)

    /** Runs {@code s} on the agent thread and waits for its result. */
    <T> T call(Supplier<T> s) {
        if (Thread.currentThread() == agentThread) {
            return s.get();
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        if (!commands.offer(() -> {
            try {
                f.complete(s.get());
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        })) {
            throw new IllegalStateException("device command queue full");
        }
        return await(f, CALL_TIMEOUT_MS);
    }

    private <T> T await(CompletableFuture<T> f, long timeoutMs) {
        try {
            return f.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            Throwable why = failure;
            throw new IllegalStateException("device agent did not answer in " + timeoutMs + " ms"
                    + (why != null ? ": agent failed: " + why : ""), why);
        }
    }

    boolean submit(Runnable r) {
        if (closed || !commands.offer(r)) {
            return false;
        }
        if (sleeping) {
            waiter.wake();
        }
        return true;
    }

    public ProtectionDomain allocPd() {
        return call(engine::allocPd);
    }

    public MemoryRegion registerMemory(ProtectionDomain pd, MemorySegment seg, int access) {
        return call(() -> engine.registerMemory(pd, seg, access));
    }

    public DeviceCq createCq(int capacity) {
        return call(() -> {
            DeviceCq cq = new DeviceCq(engine.createCq(capacity), capacity);
            cqs.add(cq);
            return cq;
        });
    }

    public DeviceQp createQp(ProtectionDomain pd, DeviceCq sendCq, DeviceCq recvCq) {
        return call(() -> newQp(pd, sendCq, recvCq));
    }

    DeviceQp newQp(ProtectionDomain pd, DeviceCq sendCq, DeviceCq recvCq) {
        QueuePair qp = engine.createQp(pd, sendCq.engineCq, recvCq.engineCq);
        qp.modifyToInit(); // as rdma_create_qp does: receives may be posted before the connection is up
        DeviceQp d = new DeviceQp(this, qp, sendCq, recvCq, cfg.sqDepth);
        qps.add(d);
        return d;
    }

    /**
     * Connects {@code qp} to the device listening at {@code server} (its plane-0 address and port) with a
     * CM exchange; retried with backoff until {@code timeoutMs}; throws with the reason on reject or timeout.
     */
    public void connect(DeviceQp qp, InetSocketAddress server, long timeoutMs) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (!submit(() -> cm.connect(qp, server, timeoutMs, f))) {
            throw new IllegalStateException("device closed");
        }
        await(f, timeoutMs + 1_000);
    }

    /**
     * Accepts connection requests from now on: each creates a QP in {@code pd} with the given CQs. Accepted
     * QPs are handed out by {@link #accept(long)}.
     */
    public void listen(ProtectionDomain pd, DeviceCq sendCq, DeviceCq recvCq) {
        call(() -> {
            cm.listen(pd, sendCq, recvCq);
            return null;
        });
    }

    /**
     * Closes {@code qp}'s connection in order (CM-10): the QP goes to ERROR (its outstanding work is flushed) and
     * a CM_DREQ is sent, retransmitted until the peer answers or the retries run out (about 1.3 s). Waits up to
     * {@code timeoutMs}; returns whether the peer answered. A QP without an open connection returns false at once.
     */
    public boolean disconnect(DeviceQp qp, long timeoutMs) {
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        if (!submit(() -> cm.disconnect(qp, f))) {
            return false;
        }
        try {
            return await(f, timeoutMs);
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** The connection manager's counters by name ({@code io.metaroce.net.cm.CmCounter}), taken on the agent. */
    public java.util.Map<String, Long> cmCounters() {
        return call(cm::counters);
    }

    /** The next accepted QP, waiting up to {@code timeoutMs}; null on timeout. */
    public DeviceQp accept(long timeoutMs) throws InterruptedException {
        return cm.accepted.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** A snapshot of the device's counters and every QP's paths, taken on the agent thread. */
    public DeviceStats stats() {
        return call(() -> DeviceStats.of(this, engine, qps));
    }

    // ------------------------------------------------------------------ agent-side helpers

    void posted(DeviceQp q, int rc, long wrId) {
        if (rc != QueuePair.OK) {
            // The engine refused a post the application could not know was bad (e.g. the QP is not connected
            // yet): report it as a completion instead of losing it, and keep the outstanding count honest.
            rejectedPosts++;
            q.extraRetired++;
            q.sendCq.offerDirect(wrId, WcStatus.LOC_QP_OP_ERR, WcOpcode.SEND, q.qpn());
        }
    }

    void postedRecv(DeviceQp q, int rc, long wrId) {
        if (rc != QueuePair.OK) {
            rejectedPosts++;
            q.recvCq.offerDirect(wrId, WcStatus.LOC_QP_OP_ERR, WcOpcode.RECV, q.qpn());
        }
    }

    Engine engine() {
        return engine;
    }

    int[] planeAddrs() {
        return planeAddr;
    }

    int planes() {
        return cfg.planes;
    }

    /** Registers a peer's plane addresses and port; returns its handle for the engine. */
    int addPeer(int[] addrs, int peerPort) {
        int[] p = new int[addrs.length + 1];
        System.arraycopy(addrs, 0, p, 0, addrs.length);
        p[addrs.length] = peerPort;
        peers.add(p);
        return peers.size() - 1;
    }

    /** Sends one control datagram (CM) from plane 0's socket. */
    void sendControl(MemorySegment dgram, int len, int toAddr, int toPort) {
        PacketBatch b = cm.batch;
        MemorySegment.copy(dgram, 0, b.slots[0], 0, len);
        b.length[0] = len;
        b.addr[0] = toAddr;
        b.port[0] = toPort;
        try {
            rxSockets[0].send(b, cm.index0, 1);
        } catch (IOException e) {
            txSendDrops++;
        }
    }

    Arena arena() {
        return arena;
    }

    // ------------------------------------------------------------------ the agent

    /** The I/O agent: the duty cycle of ARCHITECTURE.md, one thread per device. */
    private final class IoAgent {
        void run() {
            try {
                while (!closed) {
                    int work = doWork();
                    if (work == 0 && waiter != null) {
                        block();
                    } else {
                        idle.idle(work);
                    }
                }
            } catch (Throwable t) {
                failure = t;
            } finally {
                closeSockets();
                if (waiter != null) {
                    waiter.close();
                }
            }
        }

        /** Sleeps in the kernel until a datagram, the next engine deadline (at most 1 ms) or queued work. */
        private void block() {
            long now = System.nanoTime();
            long timeout = 1_000_000;
            if (nextDeadlineNs != Engine.NO_DEADLINE) {
                timeout = Math.max(0, Math.min(timeout, nextDeadlineNs - now));
            }
            if (timeout == 0) {
                return;
            }
            sleeping = true;
            if (commands.isEmpty() && !closed) {
                waiter.await(timeout);
            }
            sleeping = false;
        }

        int doWork() throws IOException {
            long now = System.nanoTime();
            int work = 0;
            Runnable r;
            while ((r = commands.poll()) != null) {
                r.run();
                work++;
            }
            for (UdpSocket s : rxSockets) {
                int n = s.receive(rxBatch);
                for (int i = 0; i < n; i++) {
                    deliver(now, i);
                }
                work += n;
            }
            if (nextDeadlineNs != Engine.NO_DEADLINE && nextDeadlineNs - now <= 0) {
                engine.handleTimeout(now);
                work++;
            }
            cm.onTimer(now);
            work += transmit(now);
            nextDeadlineNs = engine.pollTimeout();
            for (DeviceCq cq : cqs) {
                work += cq.publish();
            }
            for (int i = 0, n = qps.size(); i < n; i++) {
                DeviceQp q = qps.get(i);
                long done = q.qp.sendsRetired() + q.extraRetired;
                if (done != q.publishedRetired) { // volatile writes only on change: thousands of QPs stay cheap
                    q.publishedRetired = done;
                    q.retired = done;
                }
                io.metaroce.core.QpState st = q.qp.state();
                if (st != q.publishedState) {
                    q.publishedState = st;
                    q.state = st;
                }
            }
            dutyCycles++;
            return work;
        }

        private void deliver(long now, int i) {
            int len = rxBatch.length[i];
            MemorySegment slot = rxBatch.slots[i];
            int seg = rxBatch.segmentSize[i];
            if (seg > 0 && len > seg) {
                for (int off = 0; off < len; off += seg) {
                    one(now, slot.asSlice(off, Math.min(seg, len - off)), Math.min(seg, len - off), i);
                }
            } else {
                one(now, slot, len, i);
            }
        }

        private void one(long now, MemorySegment dgram, int len, int i) {
            rxDatagrams++;
            if (len >= 2 && Opcode.isCm(dgram.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 1) & 0xFF)) {
                cmPackets++;
                cm.handle(now, dgram, len, rxBatch.addr[i], rxBatch.port[i]);
                return;
            }
            if (opts.injectLoss > 0 && lossRng.nextDouble() < opts.injectLoss) {
                injectedDrops++;
                return;
            }
            engine.handleDatagram(now, dgram, len, rxBatch.ecn[i]);
        }

        private int transmit(long now) throws IOException {
            int total = 0;
            while (true) {
                int n = 0;
                java.util.Arrays.fill(txCountBySocket, 0);
                while (n < txBatch.capacity) {
                    int len = engine.pollTransmit(now, txBatch.slots[n], tx);
                    if (len == 0) {
                        break;
                    }
                    int[] peer = peers.get(tx.peer());
                    txBatch.length[n] = len;
                    txBatch.addr[n] = peer[tx.plane() % (peer.length - 1)];
                    txBatch.port[n] = peer[peer.length - 1];
                    int s = tx.pathId() % txSockets.length;
                    txBySocket[s][txCountBySocket[s]++] = n;
                    n++;
                }
                if (n == 0) {
                    return total;
                }
                for (int s = 0; s < txSockets.length; s++) {
                    int k = txCountBySocket[s];
                    if (k > 0) {
                        int sent = txSockets[s].send(txBatch, txBySocket[s], k);
                        txSendDrops += k - sent;
                    }
                }
                txDatagrams += n;
                total += n;
                if (n < txBatch.capacity) {
                    return total;
                }
            }
        }

    }

    private void closeSockets() {
        for (UdpSocket s : rxSockets == null ? new UdpSocket[0] : rxSockets) {
            if (s != null) {
                s.close();
            }
        }
        for (UdpSocket s : txSockets == null ? new UdpSocket[0] : txSockets) {
            if (s != null) {
                s.close();
            }
        }
    }

    /** The agent's failure, if it died (null while healthy). */
    public Throwable failure() {
        return failure;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (waiter != null) {
            waiter.wake();
        }
        Thread t = agentThread;
        if (t != null) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

}
