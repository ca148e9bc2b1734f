package io.metaroce.net.cm;

import io.metaroce.core.Engine;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-source rate limit in front of a keyed connection manager's MAC check (CmRateLimit), on virtual time: a
 * bucket admits its burst, then its rate; sources are limited apart; a flood of unsealed CM_REQs from one source
 * costs at most burst + rate x time MAC checks and refusals (the rest are {@code CM_DROP_RATE_LIMITED}, each
 * counted once), while another source connects normally during the flood; with the limit off every one is checked
 * and refused.
 */
class CmRateLimitTest {
    private static final byte[] PSK = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final long FLOODER = 7;

    @Test
    void aBucketAdmitsItsBurstThenItsRate() {
        CmRateLimit l = new CmRateLimit(1_000, 10, 42); // one token per ms
        for (int i = 0; i < 10; i++) {
            assertTrue(l.admit(0, 1), "burst " + i);
        }
        assertFalse(l.admit(0, 1));
        assertFalse(l.admit(999_999, 1), "not a whole token yet");
        assertTrue(l.admit(1_000_000, 1), "one token after 1 ms");
        assertFalse(l.admit(1_000_000, 1));
        assertFalse(l.admit(500, 1), "time going backwards earns nothing");
        assertFalse(l.admit(1_000_500, 1), "nor later: 1 ms after 1 ms, not after 500 ns");
        assertTrue(l.admit(2_000_000, 1));
        int admitted = 0;
        for (int i = 0; i < 100; i++) {
            admitted += l.admit(10_000_000_000L, 1) ? 1 : 0;
        }
        assertEquals(10, admitted, "an idle bucket refills to its burst, not beyond");
    }

    @Test
    void sourcesAreLimitedApart() {
        CmRateLimit l = new CmRateLimit(1_000, 4, 42);
        while (l.admit(0, FLOODER)) {
            // drain the flooder's bucket
        }
        int others = 0;
        for (long s = 100; s < 200; s++) {
            others += l.admit(0, s) ? 1 : 0;
        }
        // 100 sources in 1024 buckets: a few may share the flooder's bucket, the rest are untouched
        assertTrue(others >= 90, "other sources admitted: " + others);
    }

    @Test
    void aFloodOfUnsealedRequestsCostsAtMostBurstPlusRateChecks() {
        CmEndpointTest.Link link = link(CmSettings.recommended(50_000_000).withRateLimit(1_000, 100));
        int flood = flood(link, 10_000, 10_000_000); // 10,000 REQs over 10 ms: 1 per us
        long admitted = 100 + 9; // the burst at 0, then a token at 1, 2, ..., 9 ms (the last REQ comes at 9.999 ms)
        CmEndpoint b = link.b.cm;
        assertEquals(admitted, b.counter(CmCounter.CM_DROP_AUTH), "MAC checks that ran (and failed)");
        assertEquals(admitted, b.counter(CmCounter.CM_REJECTS_SENT), "AUTH-14 refusals sent");
        assertEquals(flood - admitted, b.counter(CmCounter.CM_DROP_RATE_LIMITED));
        assertEquals(flood, b.counter(CmCounter.CM_RX_PACKETS));
        assertEquals(0, b.connectionCount(), "nothing remembered");
        // meanwhile another source (A) with the key connects as usual
        QueuePair qa = link.a.freshQp();
        link.a.cm.connect(link.now, qa, 99, 0x700, 2, Engine.NO_DEADLINE);
        link.run(2_000_000);
        assertEquals(QpState.RTS, qa.state(), link.a.failures.toString());
        assertEquals(1, link.b.accepted.size());
    }

    @Test
    void withoutTheLimitEveryRequestIsCheckedAndRefused() {
        CmEndpointTest.Link link = link(CmSettings.recommended(50_000_000).withRateLimit(0, 1));
        int flood = flood(link, 10_000, 10_000_000);
        assertEquals(flood, link.b.cm.counter(CmCounter.CM_DROP_AUTH));
        assertEquals(flood, link.b.cm.counter(CmCounter.CM_REJECTS_SENT));
        assertEquals(0, link.b.cm.counter(CmCounter.CM_DROP_RATE_LIMITED));
    }

    @Test
    void aDeviceWithoutAKeyIsNotLimited() {
        CmEndpointTest.Link link = link(CmSettings.recommended(50_000_000).withRateLimit(1_000, 100));
        link.b.psk = null;
        link.a.psk = null;
        flood(link, 1_000, 1_000_000);
        assertEquals(0, link.b.cm.counter(CmCounter.CM_DROP_RATE_LIMITED), "no MAC to protect: version 1");
    }

    private static CmEndpointTest.Link link(CmSettings settings) {
        CmEndpointTest.Link link = new CmEndpointTest.Link(new CmEndpointTest.Side(1, 1024, 2, settings),
                new CmEndpointTest.Side(2, 1024, 2, settings));
        link.b.cm.listen();
        link.a.psk = PSK;
        link.b.psk = PSK;
        link.drop = d -> d.to() == FLOODER; // the refusals go nowhere
        return link;
    }

    /** {@code n} unsealed CM_REQs (fresh ids) from {@link #FLOODER} to B, evenly over {@code ns}; returns n. */
    private static int flood(CmEndpointTest.Link link, int n, long ns) {
        for (int i = 0; i < n; i++) {
            CmMessage req = new CmMessage(Opcode.CM_REQ, 0x5000_0000L + i, 0x900 + i, 0, 0x1000, 1024, 2, 0, 4793,
                    0, List.of(new byte[] {10, 0, 0, 7}));
            byte[] d = CmAuthTest.datagram(req, null);
            link.b.cm.handle(link.now + ns * i / n, MemorySegment.ofArray(d), d.length, FLOODER);
        }
        link.now += ns;
        link.inFlight.clear();
        return n;
    }
}
