package io.metaroce.net;

import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * A MetaRoCE device on real UDP sockets: the public entry point of the real datapath, a facade over three
 * parts: the {@link SocketSet} (a receive socket per plane on the protocol port; per path, send sockets on
 * source port {@code basePort + i}, connected per peer), the {@link IoAgent} (the duty cycle that runs the
 * engine) and the thread that runs the agent with an idle strategy.
 *
 * <p>Application threads never touch the engine: control calls ({@link #allocPd}, {@link #registerMemory},
 * {@link #createCq}, {@link #createQp}, {@link #connect}, {@link #stats}) run on the agent and wait for it;
 * posts ({@link DeviceQp}, through each QP's ring of work-request slots) and completion polls
 * ({@link DeviceCq}) never block.
 */
public final class Device implements AutoCloseable {
    private static final long CALL_TIMEOUT_MS = 10_000;
    /** BLOCK idle: how long the agent spins on an empty cycle before it sleeps in the kernel. */
    private static final long SPIN_BEFORE_BLOCK_NS = 50_000;
    /** Most QPs per device (the doorbell queue holds each QP at most once). */
    static final int MAX_QPS = 1 << 16;

    private final EngineConfig cfg;
    private final Engine engine;
    private final SocketSet sockets;
    private final Arena arena = Arena.ofShared();
    private final ConnectionManager cm;
    private final IoAgent agent;
    private final IdleStrategy idle;
    private final Waiter waiter;
    private final String rateSource;
    private final boolean inline;
    private final java.util.concurrent.locks.ReentrantLock inlineLock = new java.util.concurrent.locks.ReentrantLock();
    private volatile boolean sleeping;
    private volatile Thread agentThread;
    private volatile boolean closed;
    private volatile Throwable failure;

    private Device(DeviceOptions o) throws IOException {
        if (o.planes.isEmpty()) {
            throw new IllegalArgumentException("a device needs at least one plane address");
        }
        this.cfg = o.engine.copy().planes(o.planes.size());
        if (cfg.paths < cfg.planes) {
            cfg.paths(cfg.planes);
        }
        this.rateSource = DeviceSetup.applyLinkRate(o, cfg);
        this.engine = new Engine(cfg, new SplittableRandom(o.seed));
        this.sockets = new SocketSet(o.planes, o.port, o.basePort, cfg.paths, DeviceSetup.opener(o));
        try {
            this.cm = new ConnectionManager(this, o.authKey, o.encrypt, o.willListen);
            this.agent = new IoAgent(engine, sockets, new IoAgent.ControlPlane() {
                @Override
                public void handle(long nowNs, MemorySegment dgram, int len, int fromAddr, int fromPort) {
                    cm.handle(nowNs, dgram, len, fromAddr, fromPort);
                }

                @Override
                public void onTimer(long nowNs) {
                    cm.onTimer(nowNs);
                }
            }, arena, o.batch, o.txBatch, MAX_QPS, o.injectLoss, o.seed, o.stallClampNs, System.nanoTime());
            agent.trimmedDscp(o.trimmedDscp);
        } catch (RuntimeException e) {
            sockets.close();
            throw e;
        }
        this.idle = IdleStrategy.of(o.idle);
        this.waiter = DeviceSetup.waiter(o, sockets);
        this.inline = !o.agentThread;
        if (!inline) {
            Thread t = new Thread(this::run, o.name + "-io");
            t.setDaemon(true);
            agentThread = t;
            t.start();
        }
    }

    /**
     * Without an agent thread ({@link DeviceOptions#agentThread(boolean) agentThread(false)}): runs one duty
     * cycle of the device on the calling thread and returns the work it did, as an Aeron agent invoker does, so
     * that an application polling its completions drives the device itself (no hand-off between threads). One
     * thread at a time: a call while another thread is inside returns 0. With an agent thread: returns 0.
     */
    public int invoke() {
        if (!inline || closed || !inlineLock.tryLock()) {
            return 0;
        }
        try {
            return agent.doWork(System.nanoTime());
        } catch (IOException | RuntimeException e) {
            failure = e;
            closed = true;
            return 0;
        } finally {
            inlineLock.unlock();
        }
    }

    /** True when the application drives the device with {@link #invoke()} (no agent thread). */
    public boolean inline() {
        return inline;
    }

    /** Opens a device: binds its sockets and starts its agent thread. */
    public static Device open(DeviceOptions options) throws IOException {
        return new Device(options);
    }

    /** "ffm" or "channel": which datapath the sockets use. */
    public String transportName() {
        return sockets.rx[0] instanceof LinuxUdp ? "ffm (sendmmsg/recvmmsg, ECN)" : "channel (portable, ECN-blind)";
    }

    /** The UDP port every plane receives on. */
    public int port() {
        return sockets.port;
    }

    /** The source port of path 0; path {@code i} sends from {@code basePort() + i} (WIRE-15). */
    public int basePort() {
        return sockets.basePort;
    }

    /** True when the receive sockets take coalesced (GRO) buffers from the kernel. */
    public boolean groActive() {
        return sockets.rx[0].gro();
    }

    /**
     * The device-level rates in force, for the perf tools to print: the transmit pacing rate and the inbound
     * capacity shared among senders ("off" when 0), and where they come from.
     */
    public String rateSummary() {
        return DeviceSetup.rateSummary(cfg, rateSource);
    }


    /** The plane addresses, with the port, in plane order. */
    public List<InetSocketAddress> planeAddresses() {
        List<InetSocketAddress> l = new ArrayList<>();
        for (int a : sockets.planeAddr) {
            l.add(new InetSocketAddress(Ipv4.address(a), sockets.port));
        }
        return l;
    }

    /** The engine configuration in force (planes from the addresses, rates from the links where asked). */
    public EngineConfig config() {
        return cfg.copy();
    }

    // ------------------------------------------------------------------ control calls (run on the agent)

    /** Runs {@code s} on the agent thread and waits for its result. */
    <T> T call(Supplier<T> s) {
        if (Thread.currentThread() == agentThread || inline && inlineLock.isHeldByCurrentThread()) {
            return s.get();
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        if (!submit(() -> {
            try {
                f.complete(s.get());
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        })) {
            throw new IllegalStateException(closed ? "device closed" : "device command queue full");
        }
        return await(f, CALL_TIMEOUT_MS);
    }

    private <T> T await(CompletableFuture<T> f, long timeoutMs) {
        if (inline) {
            long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
            while (!f.isDone() && System.nanoTime() - deadline < 0 && failure == null) {
                if (invoke() == 0) {
                    Thread.onSpinWait();
                }
            }
        }
        try {
            return f.get(inline ? 0 : timeoutMs, TimeUnit.MILLISECONDS);
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
        if (closed || !agent.commands.offer(r)) {
            return false;
        }
        wake();
        return true;
    }

    /** A QP's ring has new work requests (called once until the agent takes them). */
    void doorbell(DeviceQp q) {
        agent.doorbells.offer(q); // cannot fail: at most MAX_QPS QPs, each queued at most once
        wake();
    }

    private void wake() {
        if (sleeping && waiter != null) {
            waiter.wake();
        }
    }

    void rejectedPost() {
        agent.rejectedPosts++;
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
            agent.cqs.add(cq);
            return cq;
        });
    }

    public DeviceQp createQp(ProtectionDomain pd, DeviceCq sendCq, DeviceCq recvCq) {
        return call(() -> newQp(pd, sendCq, recvCq));
    }

    DeviceQp newQp(ProtectionDomain pd, DeviceCq sendCq, DeviceCq recvCq) {
        if (agent.qps.size() >= MAX_QPS) {
            throw new IllegalStateException("a device has at most " + MAX_QPS + " QPs");
        }
        QueuePair qp = engine.createQp(pd, sendCq.engineCq, recvCq.engineCq);
        qp.modifyToInit(); // as rdma_create_qp does: receives may be posted before the connection is up
        DeviceQp d = new DeviceQp(this, qp, sendCq, recvCq, cfg.sqDepth, cfg.rqDepth);
        agent.add(d);
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
        return disconnectAll(List.of(qp), timeoutMs).isEmpty();
    }

    /**
     * Closes many connections in order (CM-10) at once: one agent command sends every CM_DREQ, and the answers
     * are awaited together, {@code timeoutMs} in all (not per QP, so closing thousands of QPs whose peer is gone
     * takes one wait, not one each). Returns the QPs whose peer did not answer in time, in the given order
     * (empty when all did); a QP without an open connection is among them.
     */
    public List<DeviceQp> disconnectAll(List<DeviceQp> qps, long timeoutMs) {
        List<CompletableFuture<Boolean>> answers = new ArrayList<>(qps.size());
        for (int i = 0; i < qps.size(); i++) {
            answers.add(new CompletableFuture<>());
        }
        if (!submit(() -> {
            for (int i = 0; i < qps.size(); i++) {
                cm.disconnect(qps.get(i), answers.get(i));
            }
        })) {
            return List.copyOf(qps);
        }
        try {
            await(CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)), timeoutMs);
        } catch (IllegalStateException e) {
            // not all answered in time: they are listed below
        }
        List<DeviceQp> unanswered = new ArrayList<>();
        for (int i = 0; i < qps.size(); i++) {
            if (!answers.get(i).getNow(false)) {
                unanswered.add(qps.get(i));
            }
        }
        return unanswered;
    }

    /** The connection manager's counters by name ({@code io.metaroce.net.cm.CmCounter}), taken on the agent. */
    public java.util.Map<String, Long> cmCounters() {
        return call(cm::counters);
    }

    /** The next accepted QP, waiting up to {@code timeoutMs}; null on timeout. */
    public DeviceQp accept(long timeoutMs) throws InterruptedException {
        if (!inline) {
            return cm.accepted.poll(timeoutMs, TimeUnit.MILLISECONDS);
        }
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        DeviceQp q;
        while ((q = cm.accepted.poll()) == null && System.nanoTime() - deadline < 0 && failure == null) {
            if (invoke() == 0) {
                Thread.yield();
            }
        }
        return q;
    }

    /** A snapshot of the device's counters and every QP's paths, taken on the agent thread. */
    public DeviceStats stats() {
        return call(() -> DeviceStats.of(this, agent, sockets, engine, agent.qps, cm.counters()));
    }

    /** The engine's counters (every QP's together), read on the agent thread without a whole {@link #stats()}. */
    public java.util.Map<io.metaroce.core.Counter, Long> counters() {
        return call(() -> engine.counters().snapshot());
    }

    /**
     * Datagrams received so far ({@link DeviceStats#rxDatagrams()}), read on the agent thread without a whole
     * {@link #stats()} snapshot, whose cost grows with the QPs.
     */
    public long rxDatagrams() {
        return call(() -> agent.rxDatagrams);
    }

    // ------------------------------------------------------------------ for the connection manager

    Engine engine() {
        return engine;
    }

    int[] planeAddrs() {
        return sockets.planeAddr;
    }

    int planes() {
        return cfg.planes;
    }

    /** Registers a peer's plane addresses and port (a known peer keeps its handle); returns the handle. */
    int addPeer(int[] addrs, int peerPort) {
        return sockets.addPeer(addrs, peerPort);
    }

    /** Sends one control datagram (CM) from plane 0's receive socket, i.e. from the protocol port. */
    void sendControl(MemorySegment dgram, int len, int toAddr, int toPort) {
        PacketBatch b = cm.batch;
        MemorySegment.copy(dgram, 0, b.slots[0], 0, len);
        b.length[0] = len;
        b.addr[0] = toAddr;
        b.port[0] = toPort;
        try {
            if (sockets.rx[0].send(b, cm.index0, 1) == 0) {
                agent.txSendDrops++;
            }
        } catch (IOException e) {
            agent.txSendDrops++;
        }
    }

    Arena arena() {
        return arena;
    }

    // ------------------------------------------------------------------ the agent's thread

    private void run() {
        long idleSinceNs = 0;
        try {
            while (!closed) {
                int work = agent.doWork(System.nanoTime());
                if (waiter == null) {
                    idle.idle(work);
                } else if (work > 0) {
                    idleSinceNs = 0;
                } else {
                    // BLOCK: spin a little first (a reply often comes within microseconds), then sleep in the
                    // kernel; a thread that sleeps is woken with the scheduler's preference on a loaded host.
                    long now = System.nanoTime();
                    if (idleSinceNs == 0) {
                        idleSinceNs = now;
                    }
                    if (now - idleSinceNs < SPIN_BEFORE_BLOCK_NS) {
                        Thread.onSpinWait();
                    } else {
                        block(1_000_000);
                    }
                }
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            sockets.close();
            if (waiter != null) {
                waiter.close();
            }
        }
    }

    /**
     * With {@link DeviceOptions.Idle#BLOCK} and no agent thread: sleeps in the kernel until a datagram arrives,
     * the engine's next deadline, a post or control call, or {@code maxNs}, whichever is first. Returns at once
     * otherwise. The application's polling loop calls it after finding nothing to do for a while.
     */
    public void await(long maxNs) {
        if (inline && waiter != null && !closed && inlineLock.tryLock()) {
            try {
                block(maxNs);
            } finally {
                inlineLock.unlock();
            }
        }
    }

    /** Sleeps in the kernel until a datagram, the next engine deadline (at most {@code maxNs}) or queued work. */
    private void block(long maxNs) {
        long timeout = maxNs;
        long deadline = agent.nextDeadlineNs();
        if (deadline != Engine.NO_DEADLINE) {
            timeout = Math.max(0, Math.min(timeout, agent.clock().untilNs(deadline)));
        }
        if (timeout == 0) {
            return;
        }
        sleeping = true;
        if (agent.commands.isEmpty() && agent.doorbells.isEmpty() && !closed) {
            waiter.await(timeout);
        }
        sleeping = false;
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
        if (inline) {
            inlineLock.lock(); // no duty cycle runs while the sockets close
            try {
                sockets.close();
                if (waiter != null) {
                    waiter.close();
                }
            } finally {
                inlineLock.unlock();
            }
            return;
        }
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
