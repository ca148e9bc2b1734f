package io.metaroce.sim.fabric;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The route and info words a link carries beside each packet (so that switches route and queue without reading
 * the packet) give back every field they hold, at the edges of each field's range.
 */
class PacketWordsTest {
    @Test
    void wordsGiveBackEveryFieldAtTheEdgesOfItsRange() {
        PacketPool pool = new PacketPool(64);
        Packet p = pool.alloc();
        int[] hosts = {0, 1, 8191, 65_535, 1 << 24, Integer.MAX_VALUE};
        int[] paths = {0, 255, 256, 49_151, Integer.MAX_VALUE};
        int[] lengths = {0, 1, 64, 4_164, 9_068, 65_535, (1 << 29) - 1};
        for (int src : hosts) {
            for (int dst : hosts) {
                for (int path : paths) {
                    for (int length : lengths) {
                        for (int ecn = 0; ecn < 4; ecn++) {
                            for (boolean data : new boolean[] {false, true}) {
                                p.src = src;
                                p.dst = dst;
                                p.pathId = path;
                                p.length = length;
                                p.ecn = ecn;
                                p.data = data;
                                long route = Packet.route(p);
                                long info = Packet.info(p);
                                String what = src + ">" + dst + " path " + path + " len " + length + " ecn " + ecn;
                                assertEquals(src, Packet.routeSrc(route), what);
                                assertEquals(dst, Packet.routeDst(route), what);
                                assertEquals(path, Packet.infoPath(info), what);
                                assertEquals(length, Packet.infoLength(info), what);
                                assertEquals(ecn, Packet.infoEcn(info), what);
                                assertEquals(data, Packet.infoData(info), what);
                            }
                        }
                    }
                }
            }
        }
    }
}
