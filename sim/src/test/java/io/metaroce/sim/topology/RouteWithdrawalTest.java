package io.metaroce.sim.topology;

import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Switch;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failed links withdrawn beyond the dead link's two switches ({@link RouteWithdrawal}): a switch upstream of the
 * failure stops hashing a destination's flows towards a switch whose only route to it is dead, for that
 * destination only, and takes them back once the link is up again.
 */
class RouteWithdrawalTest {
    private static final long DETECT = Units.psFromUs(10);

    /** 12 hosts on 3 leaves, 4 spines; the cable between spine 1 and leaf 0 is cut at time 0. */
    private static FabricHarness leafSpine(long detectPs) {
        FabricHarness h = new FabricHarness(new FabricConfig().hosts(12).hostsPerLeaf(4).spines(4)
                .linkFailureDetectPs(detectPs), 5);
        cut(h, "p0.spine1>p0.leaf0", "p0.leaf0>p0.spine1", false);
        return h;
    }

    private static void cut(FabricHarness h, String a, String b, boolean up) {
        h.fabric.link(a).setUp(up);
        h.fabric.link(b).setUp(up);
    }

    /** At {@code atPs}, 96 packets over 16 path ids from each of {@code srcs} to the hosts {@code dstLo..+3}. */
    private static long burst(FabricHarness h, long atPs, int[] srcs, int dstLo) {
        long before = h.totalReceived();
        h.loop.schedule(atPs, arg -> {
            for (int i = 0; i < 96; i++) {
                h.send(srcs[i % srcs.length], dstLo + i % 4, 0, i % 16, 500, true);
            }
        }, 0);
        h.drain();
        return h.totalReceived() - before;
    }

    @Test
    void otherLeavesStopHashingTowardsASpineThatLostItsLinkToTheDestinationLeaf() {
        FabricHarness h = leafSpine(DETECT);
        LeafSpine ls = (LeafSpine) h.fabric;
        int[] fromLeaves12 = {4, 5, 6, 7, 8, 9, 10, 11};
        long early = burst(h, Units.psFromUs(5), fromLeaves12, 0);
        assertTrue(early > 0 && early < 96, "before detection leaves 1 and 2 still hash some flows to spine 1: "
                + early);
        long intoDeadLink = ls.spineDownlink(0, 1, 0).packets();
        assertEquals(96, burst(h, Units.psFromUs(20), fromLeaves12, 0), "after detection no packet dies");
        assertEquals(intoDeadLink, ls.spineDownlink(0, 1, 0).packets(), "none is even sent to spine 1 for leaf 0");
        Switch leaf1 = ls.leaf(0, 1);
        assertEquals(3, leaf1.groupSize(0), "leaf 1 avoids spine 1 for leaf 0's hosts");
        assertEquals(4, leaf1.groupSize(8), "and still uses it for leaf 2's hosts");
        assertEquals(4, leaf1.groupSize());
        long viaSpine1 = ls.spineDownlink(0, 1, 2).packets();
        assertEquals(96, burst(h, Units.psFromUs(25), new int[] {4, 5, 6, 7}, 8));
        assertTrue(ls.spineDownlink(0, 1, 2).packets() > viaSpine1, "leaf 1 to leaf 2 still crosses spine 1");

        // the cable comes back at 30 us: 10 us later leaf 1 hashes leaf 0's flows over spine 1 again
        h.loop.schedule(Units.psFromUs(30), arg -> cut(h, "p0.spine1>p0.leaf0", "p0.leaf0>p0.spine1", true), 0);
        assertEquals(96, burst(h, Units.psFromUs(45), fromLeaves12, 0));
        assertEquals(4, leaf1.groupSize(0));
        assertTrue(ls.spineDownlink(0, 1, 0).packets() > intoDeadLink, "spine 1 carries leaf 0's traffic again");
    }

    @Test
    void withoutDetectionTheFlowsHashedToTheDeadSpineKeepDying() {
        FabricHarness h = leafSpine(-1);
        assertTrue(burst(h, Units.psFromUs(20), new int[] {4, 5, 6, 7, 8, 9, 10, 11}, 0) < 96);
    }

    @Test
    void aLeafCutOffFromEverySpineIsUnroutableElsewhereNotADeadEnd() {
        FabricHarness h = new FabricHarness(new FabricConfig().hosts(8).hostsPerLeaf(4).spines(2)
                .linkFailureDetectPs(DETECT), 5);
        cut(h, "p0.spine0>p0.leaf0", "p0.leaf0>p0.spine0", false);
        cut(h, "p0.spine1>p0.leaf0", "p0.leaf0>p0.spine1", false);
        assertEquals(0, burst(h, Units.psFromUs(20), new int[] {4, 5, 6, 7}, 0));
        Switch leaf1 = ((LeafSpine) h.fabric).leaf(0, 1);
        assertEquals(0, leaf1.groupSize(0));
        assertEquals(96, leaf1.unroutable(), "dropped at the first switch without a route, and counted");
        assertEquals(96, burst(h, Units.psFromUs(25), new int[] {4, 5, 6}, 4), "leaf 1's own hosts are fine");
    }

    @Test
    void aFatTreeWithdrawsACoreForOnePodAndAnAggregationSwitchForOneEdge() {
        // k = 4: 16 hosts, 4 pods of 2 edges x 2 hosts; aggregation switch a reaches cores 2a and 2a + 1
        FabricHarness h = new FabricHarness(new FabricConfig().fatTree(4).linkFailureDetectPs(DETECT), 9);
        FatTree ft = (FatTree) h.fabric;
        cut(h, "p0.core0>p0.pod1.agg0", "p0.pod1.agg0>p0.core0", false); // core 0 cannot reach pod 1
        cut(h, "p0.pod2.agg1>p0.pod2.edge0", "p0.pod2.edge0>p0.pod2.agg1", false); // cores 2, 3 lose pod 2 edge 0
        int[] pod0 = {0, 1, 2, 3};
        assertEquals(96, burst(h, Units.psFromUs(20), pod0, 4), "pod 0 to pod 1 avoids core 0");
        assertEquals(96, burst(h, Units.psFromUs(25), pod0, 8), "pod 0 to pod 2 edge 0 avoids aggregation 1");
        assertEquals(96, burst(h, Units.psFromUs(30), pod0, 12), "pod 0 to pod 3 uses everything");
        assertEquals(1, ft.agg(0, 0, 0).groupSize(4), "pod 0 agg 0 has core 1 only towards pod 1");
        assertEquals(2, ft.agg(0, 0, 0).groupSize(12));
        assertEquals(1, ft.edge(0, 0, 0).groupSize(8), "pod 0 edges have agg 0 only towards pod 2 edge 0");
        assertEquals(2, ft.edge(0, 0, 0).groupSize(10), "and both towards pod 2 edge 1");
        assertEquals(0, ft.coreDownlink(0, 0, 1).dropped() + ft.aggDownlink(0, 2, 1, 0).dropped());
    }
}
