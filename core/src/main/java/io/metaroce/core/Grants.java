package io.metaroce.core;

import java.util.ArrayList;

/**
 * The receiver's grants (HINT-1..HINT-6): this engine's inbound capacity shared equally among the senders (peer
 * endpoints, whatever their number of QPs) that delivered data recently, scaled down by the CE fraction of arriving data so that a standing queue in front of
 * the receiver drains; returned to each sender in every ACK.
 */
final class Grants {
    private final EngineConfig cfg;
    private final ArrayList<PeerLoad> activeSenders = new ArrayList<>();
    /** HINT-6: moving average (gain ecnGain) of the CE fraction of data packets arriving from active senders. */
    private double rxCeAlpha;
    private long lastActiveScanNs = Long.MIN_VALUE;

    Grants(EngineConfig cfg) {
        this.cfg = cfg;
    }

    /** A data packet from {@code peer} arrived at {@code nowNs}, CE-marked or not. */
    void noteSenderActivity(PeerLoad peer, long nowNs, boolean ce) {
        // HINT-6: the CE fraction of arriving data measures the queue in front of this receiver
        rxCeAlpha += cfg.ecnGain * ((ce ? 1.0 : 0.0) - rxCeAlpha);
        peer.lastDataRxNs = nowNs;
        if (!peer.activeSender) {
            peer.activeSender = true;
            activeSenders.add(peer);
        }
    }

    /** HINT-1/2: capacity shared equally among senders (peers) active within the window, in Mb/s; 0 = no grant. */
    int grantMbps(long nowNs) {
        if (cfg.inboundCapacityBps == 0) {
            return 0;
        }
        if (nowNs - lastActiveScanNs >= cfg.activeSenderWindowNs / 8 || lastActiveScanNs == Long.MIN_VALUE) {
            lastActiveScanNs = nowNs;
            for (int i = activeSenders.size() - 1; i >= 0; i--) {
                PeerLoad s = activeSenders.get(i);
                if (nowNs - s.lastDataRxNs > cfg.activeSenderWindowNs) {
                    s.activeSender = false;
                    activeSenders.set(i, activeSenders.get(activeSenders.size() - 1));
                    activeSenders.remove(activeSenders.size() - 1);
                }
            }
        }
        int n = Math.max(1, activeSenders.size());
        long mbps = (long) (cfg.inboundCapacityBps * cfg.grantFraction * (1 - rxCeAlpha / 2) / n / 1_000_000.0);
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, mbps));
    }

    /** Senders currently counted active. */
    int activeCount() {
        return activeSenders.size();
    }
}
