package io.metaroce.core;

/**
 * PATH-19: the device's clock per plane. A device with {@code planes} ports sends on each at its share of the line
 * rate ({@code txRateBps / planes}); each clock tells when its port has serialized everything sent on it so far.
 * A port is backlogged when it holds more than one full-size datagram besides the one it serializes; a QP avoids the
 * paths of backlogged ports, so that the device's line rate (PATH-14), met in sum, is also met port by port and no
 * port's queue grows while another idles.
 */
final class PlaneClocks {
    /** When each plane's port is free again (valid once {@link #used} is set). */
    private final long[] freeNs;
    private final boolean[] used;
    private final long txRateBps;
    /** How far ahead of now a port's clock may run before the port counts as backlogged: one full-size datagram. */
    private final long backlogNs;

    PlaneClocks(EngineConfig cfg) {
        this.freeNs = new long[cfg.planes];
        this.used = new boolean[cfg.planes];
        this.txRateBps = cfg.txRateBps;
        this.backlogNs = txRateBps > 0 ? portNs(DatagramSizes.maxData(cfg)) : 0;
    }

    private long portNs(int bytes) {
        return bytes * 8_000_000_000L * freeNs.length / txRateBps;
    }

    /** A datagram of {@code bytes} left on {@code plane} at {@code nowNs}. */
    void sent(int plane, int bytes, long nowNs) {
        if (txRateBps <= 0 || plane < 0 || plane >= freeNs.length) {
            return;
        }
        long start = used[plane] && freeNs[plane] - nowNs > 0 ? freeNs[plane] : nowNs;
        freeNs[plane] = start + portNs(bytes);
        used[plane] = true;
    }

    /**
     * When a path on {@code plane} may be chosen, for comparing paths (PATH-19): {@code nowNs} while its port is not
     * backlogged (it holds at most one full-size datagram besides the one it serializes), else when the port is free.
     */
    long choosableAtNs(int plane, long nowNs) {
        return used[plane] && freeNs[plane] - nowNs > backlogNs ? freeNs[plane] : nowNs;
    }
}
