package io.metaroce.sim.fabric;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The event loop's read-ahead ({@code EventHandler.warm}, {@code warmFurther}) changes nothing: an adaptive switch,
 * whose ties are broken by a seeded stream, picks the same uplinks whether or not its links and the switch are read
 * ahead before every packet.
 */
class ReadAheadTest {
    /** The uplink (0-3) each of 200 packets takes, sent 1 us apart (every queue empty: every pick is a tie). */
    private static List<Integer> picks(boolean readAhead) {
        EventLoop loop = new EventLoop();
        PacketPool pool = new PacketPool(2000);
        Switch sw = new Switch("s", 7, pool, loop);
        SwitchPort[] ports = new SwitchPort[4];
        for (int i = 0; i < ports.length; i++) {
            Link l = new Link(loop, pool, 100_000_000_000L, Units.psFromNs(100), new SplittableRandom(i), "u" + i);
            l.connect((p, in) -> pool.release(p), 0);
            ports[i] = new SwitchPort(loop, pool, l, 1 << 20, -1, 0, 0, new SplittableRandom(i));
            sw.addPort(ports[i]);
        }
        sw.setRoutes(0, 0, 1, 0, new int[] {0, 1, 2, 3}); // every destination goes up
        sw.setAdaptive(true);
        // packets reach the switch over a link, as in a fabric (the link carries their route and info words)
        Link in = new Link(loop, pool, 100_000_000_000L, Units.psFromNs(100), new SplittableRandom(9), "in");
        in.connect(sw, 0);
        SwitchPort feed = new SwitchPort(loop, pool, in, 1 << 20, -1, 0, 0, new SplittableRandom(9));
        List<Integer> picks = new ArrayList<>();
        long[] before = new long[ports.length];
        for (int n = 0; n < 200; n++) {
            Packet p = pool.alloc();
            p.src = n % 7;
            p.dst = 5;
            p.pathId = n % 3;
            p.length = 1000;
            p.data = true;
            feed.enqueue(p);
            if (readAhead) {
                for (int k = 0; k < 3; k++) { // as the loop would, and more
                    in.warm();
                    in.warmFurther();
                    sw.warm(Packet.route(p), Packet.info(p));
                    for (SwitchPort port : ports) {
                        port.warm();
                    }
                }
            }
            loop.run(loop.nowPs() + Units.psFromNs(1_000));
            for (int i = 0; i < ports.length; i++) {
                if (ports[i].enqueued() != before[i]) {
                    picks.add(i);
                    before[i] = ports[i].enqueued();
                }
            }
        }
        assertEquals(200, picks.size());
        return picks;
    }

    @Test
    void readingAheadChangesNoAdaptivePick() {
        List<Integer> plain = picks(false);
        assertEquals(plain, picks(true));
        assertEquals(4, plain.stream().distinct().count(), "ties spread over every uplink: " + plain);
    }
}
