package io.metaroce.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** REL-16: the windowed maximum of one-way delays that says how long a missing segment may still be on its way. */
class OneWayDelayTest {
    @Test
    void lagIsTheSlowestRecentDelayOverThisPacketsOwn() {
        OneWayDelay d = new OneWayDelay();
        assertEquals(0, d.lagNs(1_000, 1_000), "no sample: no lag");
        d.sample(30_000, 10_000); // 20 us
        d.sample(31_000, 30_000); // 1 us
        assertEquals(19_000, d.lagNs(31_000, 30_000));
        assertEquals(0, d.lagNs(50_000, 20_000), "slower than anything seen: no lag");
    }

    @Test
    void theMaximumOutlivesOneBucketButNotTwo() {
        OneWayDelay d = new OneWayDelay();
        d.sample(20_000, 0); // 20 us, then a bucket's worth of 1 us packets
        for (int i = 1; i < OneWayDelay.BUCKET; i++) {
            d.sample(i * 1_000L + 1_000, i * 1_000L);
        }
        assertEquals(19_000, d.lagNs(1_000, 0), "the slow packet is in the previous bucket");
        for (int i = 0; i < OneWayDelay.BUCKET; i++) {
            d.sample(i * 1_000L + 1_000, i * 1_000L);
        }
        assertEquals(0, d.lagNs(1_000, 0), "two buckets later it is forgotten");
    }

    @Test
    void clockOffsetsCancel() {
        OneWayDelay d = new OneWayDelay();
        long offset = -7_000_000_000_000L; // the peer's clock is far from ours
        d.sample(5_000, 5_000 + offset - 8_000); // 8 us
        assertEquals(6_000, d.lagNs(9_000, 9_000 + offset - 2_000)); // this one took 2 us
    }

    @Test
    void aLateSegmentAddsSlackThatDecaysInQuietBuckets() {
        OneWayDelay d = new OneWayDelay();
        d.sample(1_000, 0);
        assertEquals(0, d.lagNs(1_000, 0));
        d.widen(3_000); // REL-19: a segment NAKed MISSING arrived 3 us after its NAK
        d.widen(2_000); // a smaller one does not shrink it
        assertEquals(3_000, d.lagNs(1_000, 0));
        for (int i = 1; i < OneWayDelay.BUCKET; i++) {
            d.sample(1_000, 0); // the rest of the bucket it widened: no decay yet
        }
        assertEquals(3_000, d.lagNs(1_000, 0));
        for (int i = 0; i < OneWayDelay.BUCKET; i++) {
            d.sample(1_000, 0); // a quiet bucket
        }
        assertEquals(1_500, d.lagNs(1_000, 0), "halved after a bucket without a late segment");
        d.widen(10_000_000);
        assertEquals(OneWayDelay.MAX_SLACK_NS, d.lagNs(1_000, 0), "capped");
    }
}
