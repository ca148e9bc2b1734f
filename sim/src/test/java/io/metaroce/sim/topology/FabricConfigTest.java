package io.metaroce.sim.topology;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.PacketPool;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FabricConfigTest {
    private static final Set<Class<?>> SIMPLE = Set.of(int.class, long.class, double.class, boolean.class,
            String.class);

    @Test
    void everySettingIsAPublicFieldOfASimpleTypeSettableByName() throws ReflectiveOperationException {
        int settings = 0;
        for (Field f : FabricConfig.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            settings++;
            assertTrue(SIMPLE.contains(f.getType()) || f.getType().isEnum(), f.getName() + " is " + f.getType());
        }
        assertEquals(27, settings, "a new setting? check it is simple, documented and validated");
        for (String name : new String[] {"topology", "k", "hostsPerEdge", "routing", "pfc", "pfcXoffBytes",
            "pfcXonBytes", "wireOverheadBytes", "controlWireBytes", "linkLoss", "ecnMarkAt", "linkFailureDetectPs",
            "trimming", "lossModel"}) {
            FabricConfig.class.getField(name);
        }
        // what an experiment file does: fabric.topology = fat-tree, fabric.k = 4, ...
        FabricConfig cfg = new FabricConfig();
        FabricConfig.class.getField("topology").set(cfg, "fat-tree");
        FabricConfig.class.getField("k").setInt(cfg, 4);
        FabricConfig.class.getField("hosts").setInt(cfg, 16);
        FabricConfig.class.getField("planes").setInt(cfg, 2);
        FabricConfig.class.getField("pfc").setBoolean(cfg, true);
        FabricConfig.class.getField("routing").set(cfg, "adaptive");
        FabricConfig.class.getField("linkLoss").setDouble(cfg, 0.01);
        Fabric f = Topologies.build(cfg, new EventLoop(), new PacketPool(4200), new SplittableRandom(1));
        assertInstanceOf(FatTree.class, f);
        assertEquals(2 * 20, f.switches().size());
        assertEquals(0.01, f.links().get(0).loss());
        assertTrue(f.switches().get(0).pfcXoffBytes() > 0);
        // end to end: only the hosts' uplinks lose packets (each packet crosses exactly one)
        FabricConfig.class.getField("lossModel").set(cfg, FabricConfig.END_TO_END);
        Fabric e2e = Topologies.build(cfg, new EventLoop(), new PacketPool(4200), new SplittableRandom(1));
        int lossy = 0;
        for (Link l : e2e.links()) {
            lossy += l.loss() > 0 ? 1 : 0;
        }
        assertEquals(16 * 2, lossy, "one uplink per host and plane");
        assertEquals(0.01, e2e.hostUplink(3, 1).loss());
        assertEquals(0.0, e2e.hostDownlink(3, 1).loss());
    }

    @Test
    void headroomIsARoundTripAtLineRatePlusTwoPackets() {
        // 100 Gb/s over 1 us: 12,500 bytes each way
        assertEquals(25_000 + 2 * 4150, FabricConfig.pfcHeadroomBytes(100_000_000_000L, Units.psFromUs(1), 4150));
    }
}
