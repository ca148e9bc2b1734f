package io.metaroce.net.testbed;

/**
 * The nft counters of one plane's switch since it was built (or since {@link Testbed#resetCounters()}). With
 * offloads on, a "packet" may be a GSO super-packet of many frames.
 *
 * @param plane         the plane
 * @param ipv4Packets   IPv4 frames the bridge was asked to forward (before random loss)
 * @param ipv4Bytes     their bytes (IP length + Ethernet header)
 * @param lostPackets   frames dropped by the random-loss rule
 * @param lostBytes     their bytes
 * @param markedPackets ECT frames the phantom queue marked CE (all ports of the plane)
 * @param markedBytes   their bytes
 */
public record PlaneCounters(int plane, long ipv4Packets, long ipv4Bytes, long lostPackets, long lostBytes,
                            long markedPackets, long markedBytes) {
    /** Lost / seen, NaN when nothing was seen. */
    public double lossFraction() {
        return ipv4Packets == 0 ? Double.NaN : (double) lostPackets / ipv4Packets;
    }
}
