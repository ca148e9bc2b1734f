package io.metaroce.core;

import io.metaroce.core.wire.AckBundleHeader;
import io.metaroce.core.wire.AckHeader;
import io.metaroce.core.wire.BaseHeader;

import java.lang.foreign.MemorySegment;

/**
 * Receives ACK bundles (ACK-11): checks the entries, then hands each one to {@link LossRecovery#onAck} as the ACK
 * of its path that it stands for ({@link AckBundleHeader#expand}), in entry order. One per engine (one thread);
 * its 88-byte scratch ACK is allocated once.
 */
final class AckBundleReader {
    private final MemorySegment scratch = MemorySegment.ofArray(new byte[BaseHeader.LENGTH + AckHeader.LENGTH]);
    private final BaseHeader base = new BaseHeader();
    private final BaseHeader scratchBase = new BaseHeader();
    private final AckBundleHeader bundle = new AckBundleHeader();
    private final AckHeader scratchAck = new AckHeader();

    /**
     * Handles the checked bundle {@code seg} addressed to QP {@code c}. A payload that is not a whole number of
     * entries, or an entry naming a path the QP does not have, drops the whole bundle as {@code DROP_MALFORMED}.
     */
    void read(long nowNs, QpCore c, MemorySegment seg, LossRecovery recovery) {
        int n = AckBundleHeader.entries(base.wrap(seg, 0).payloadLength());
        if (n < 0) {
            c.count(Counter.DROP_MALFORMED);
            return;
        }
        bundle.wrap(seg, BaseHeader.LENGTH);
        for (int i = 0; i < n; i++) {
            if (bundle.pathId(i) >= c.paths.length) {
                c.count(Counter.DROP_MALFORMED);
                return;
            }
        }
        c.count(Counter.RX_ACK_BUNDLES);
        for (int i = 0; i < n; i++) {
            AckBundleHeader.expand(seg, i, scratch, scratchBase, bundle, scratchAck);
            recovery.onAck(nowNs, c.path(bundle.pathId(i)), scratch);
        }
    }
}
