package io.metaroce.core;

import io.metaroce.core.auth.PacketAuth;

/**
 * AUTH-18: when one authenticated QP's sender moves to its next key. After {@link EngineConfig#authKeyUpdatePackets}
 * packets sealed under the current key, the next packet is sealed under the next one, as soon as the peer has
 * acknowledged a PSN sent under the current key (so the peer holds the current key's successor before a second
 * update could follow: one phase bit tells them apart). The acknowledgement is read from the path the packet is
 * sent on; paths that carry data all see one within a round trip. Nothing here allocates.
 */
final class KeyUpdates {
    private final QpCore c;
    private final PacketAuth auth;
    private final long limit;
    /** Per path: the first PSN sent under the current key (valid after the first update). */
    private final int[] startPsn;
    private boolean firstKey = true;

    KeyUpdates(QpCore c, PacketAuth auth) {
        this.c = c;
        this.auth = auth;
        this.limit = auth.canUpdateKey() ? c.cfg.authKeyUpdatePackets : 0;
        this.startPsn = new int[c.paths.length];
    }

    /** Before a packet on {@code p} is sealed: moves to the next key when it is due and allowed. */
    void beforeSeal(Path p) {
        if (limit == 0 || auth.sealedUnderKey() < limit || !p.anyAcked()
                || !firstKey && p.highestAcked() - startPsn[p.id] < 0) {
            return;
        }
        auth.updateTxKey();
        firstKey = false;
        for (int id = 0; id < startPsn.length; id++) {
            startPsn[id] = c.nextPsn(id); // every PSN from here on is sent under the new key
        }
        c.count(Counter.KEY_UPDATES_SENT);
    }
}
