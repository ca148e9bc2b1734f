package io.metaroce.net;

import io.metaroce.core.EngineConfig;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Locale;

/** How a {@link Device}'s options become its sockets, its rates in force and its kernel waiter. */
final class DeviceSetup {
    private DeviceSetup() {
    }

    /**
     * With {@link DeviceOptions#rateFromLink}, a rate left at 0 (off) takes the planes' summed line rate where
     * every plane's is known. Returns where the rates in force come from, for {@link #rateSummary()}.
     */
    static String applyLinkRate(DeviceOptions o, EngineConfig c) {
        if (!o.rateFromLink || c.txRateBps > 0 && c.inboundCapacityBps > 0) {
            return "configured";
        }
        long link = o.linkRate.ofPlanes(o.planes);
        if (link == 0) {
            return "configured; no physical link rate to read";
        }
        if (c.txRateBps == 0) {
            c.txRateBps(link);
        }
        if (c.inboundCapacityBps == 0) {
            c.inboundCapacityBps(link);
        }
        return "link speed from sysfs";
    }

    static SocketSet.Opener opener(DeviceOptions o) {
        boolean ffm = o.transport == DeviceOptions.Transport.FFM
                || o.transport == DeviceOptions.Transport.AUTO && LinuxUdp.unavailableReason() == null;
        return new SocketSet.Opener() {
            @Override
            public UdpSocket receiver(InetSocketAddress at) throws IOException {
                return ffm ? new LinuxUdp(at, o.socketBufferBytes, o.gro, false)
                        : new ChannelUdp(at, o.socketBufferBytes);
            }

            @Override
            public UdpSocket sender(InetSocketAddress at) throws IOException {
                return ffm ? new LinuxUdp(at, o.socketBufferBytes, false, true, o.gso)
                        : new ChannelUdp(at, o.socketBufferBytes);
            }
        };
    }

    /** The rates in force ("off" when 0) and where they come from, for {@link Device#rateSummary()}. */
    static String rateSummary(EngineConfig c, String source) {
        return "tx rate " + gbps(c.txRateBps) + ", inbound capacity " + gbps(c.inboundCapacityBps) + " (" + source + ")";
    }

    private static String gbps(long bps) {
        return bps == 0 ? "off" : String.format(Locale.ROOT, "%.1f Gb/s", bps / 1e9);
    }

    /** With {@link DeviceOptions.Idle#BLOCK} on the FFM sockets: a waiter on every plane's receive socket; else null. */
    static Waiter waiter(DeviceOptions o, SocketSet sockets) throws IOException {
        if (o.idle != DeviceOptions.Idle.BLOCK || !Waiter.available() || !(sockets.rx[0] instanceof LinuxUdp)) {
            return null;
        }
        int[] fds = new int[sockets.rx.length];
        for (int p = 0; p < fds.length; p++) {
            fds[p] = ((LinuxUdp) sockets.rx[p]).fd();
        }
        return new Waiter(fds);
    }
}
