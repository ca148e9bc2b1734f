package io.metaroce.net;

import io.metaroce.core.EngineConfig;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/** How to open a {@link Device}. Fluent setters; defaults suit loopback and a test bed. */
public final class DeviceOptions {
    /** Which kernel interface moves the datagrams. */
    public enum Transport {
        /** FFM (sendmmsg/recvmmsg, ECN) on Linux, else the channel fallback. */
        AUTO,
        /** FFM only; opening fails where it is unavailable. */
        FFM,
        /** {@link java.nio.channels.DatagramChannel}: portable, slower, blind to ECN. */
        CHANNEL
    }

    /** How the I/O agent waits when it has nothing to do. */
    public enum Idle {
        /**
         * Sleep in the kernel (ppoll) until a datagram, a timer or queued work: no CPU burnt, a wake-up of tens
         * of microseconds (about 100 us on the VMs this project is tested on, which is why YIELD is the default
         * there). Falls back to BACKOFF without FFM.
         */
        BLOCK,
        /** Busy-spin: lowest latency, one core always busy. */
        SPIN,
        /** Thread.yield between polls (the default: the best throughput and latency measured on 2 shared cores). */
        YIELD,
        /** Spin, then yield (about 5,000 times), then park up to 50 us. */
        BACKOFF,
        /** Park 100 us between polls: least CPU, most latency. */
        PARK
    }

    final List<InetAddress> planes = new ArrayList<>();
    int port = io.metaroce.core.wire.Packet.DEFAULT_UDP_PORT;
    EngineConfig engine = realNetworkDefaults();
    Transport transport = Transport.AUTO;
    Idle idle = Idle.YIELD;
    double injectLoss;
    long seed = 1;
    int socketBufferBytes = 8 << 20;
    int batch = 32;
    boolean gro = false;
    boolean gso = true;
    String name = "metaroce";

    public DeviceOptions() {
    }

    /**
     * Engine settings for hosts whose I/O thread shares its cores: timers long enough that scheduling stalls
     * of a few milliseconds are not taken for loss or failure.
     */
    public static EngineConfig realNetworkDefaults() {
        return new EngineConfig().mtu(8192).paths(8).minRtoNs(5_000_000).initialRtoNs(10_000_000)
                .maxRtoNs(200_000_000).ackDelayNs(20_000).probeIntervalNs(5_000_000).failAfterTimeouts(3)
                .connectionTimeoutNs(10_000_000_000L).maxWindowPackets(64)
                // A software NIC: pace what the device sends at 10 Gb/s and share 10 Gb/s of inbound capacity
                // among the active senders, so that many QPs' windows do not overrun socket buffers at once.
                .txRateBps(10_000_000_000L).inboundCapacityBps(10_000_000_000L);
    }

    /** One local address per plane, in plane order. */
    public DeviceOptions planes(List<InetAddress> addresses) {
        planes.clear();
        planes.addAll(addresses);
        return this;
    }

    /** UDP port to receive on (the protocol's destination port); 0 picks a free one. */
    public DeviceOptions port(int p) { port = p; return this; }
    /** Engine settings; {@code planes} is set from the plane addresses. */
    public DeviceOptions engine(EngineConfig c) { engine = c; return this; }
    public DeviceOptions transport(Transport t) { transport = t; return this; }
    public DeviceOptions idle(Idle i) { idle = i; return this; }
    /**
     * TEST ONLY: drop this fraction of received protocol datagrams at the receiver, before the engine sees
     * them (seeded). For loss experiments where the network cannot drop.
     */
    public DeviceOptions injectLossForTesting(double fraction) { injectLoss = fraction; return this; }
    public DeviceOptions seed(long s) { seed = s; return this; }
    public DeviceOptions socketBufferBytes(int b) { socketBufferBytes = b; return this; }
    /** Datagrams per sendmmsg/recvmmsg call. */
    public DeviceOptions batch(int b) { batch = b; return this; }
    /** Ask the kernel for UDP GRO on receive sockets. */
    public DeviceOptions gro(boolean on) { gro = on; return this; }
    /** Send runs of equal-size datagrams to one peer as one UDP GSO ({@code UDP_SEGMENT}) send. */
    public DeviceOptions gso(boolean on) { gso = on; return this; }
    /** Name of the agent thread. */
    public DeviceOptions name(String n) { name = n; return this; }
}
