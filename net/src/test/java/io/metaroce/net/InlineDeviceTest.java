package io.metaroce.net;

import io.metaroce.core.Access;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Devices without an agent thread, driven by their applications' own threads through {@link Device#invoke()}. */
class InlineDeviceTest {
    @Test
    void applicationThreadsDriveTheirDevicesAndAWriteLands() throws Exception {
        DeviceOptions base = new DeviceOptions().planes(LoopbackTest.planes(2)).port(0).agentThread(false)
                .engine(DeviceOptions.realNetworkDefaults().mtu(4096).paths(4));
        AtomicBoolean stop = new AtomicBoolean();
        try (Device a = Device.open(base.name("in-a").seed(1)); Device b = Device.open(base.name("in-b").seed(2));
             Arena arena = Arena.ofShared()) {
            assertTrue(a.inline() && b.inline());
            ProtectionDomain pb = b.allocPd(); // control calls run the duty cycle themselves
            DeviceCq cb = b.createCq(64);
            MemoryRegion mb = b.registerMemory(pb, arena.allocate(1 << 20, 4096), Access.ALL);
            b.listen(pb, cb, cb);
            Thread server = new Thread(() -> { // b's application: it only polls, and so drives b
                while (!stop.get()) {
                    if (b.invoke() == 0) {
                        Thread.onSpinWait();
                    }
                }
            }, "b-app");
            server.start();
            ProtectionDomain pa = a.allocPd();
            DeviceCq ca = a.createCq(64);
            DeviceQp qa = a.createQp(pa, ca, ca);
            MemoryRegion ma = a.registerMemory(pa, arena.allocate(1 << 20, 4096), Access.ALL);
            LoopbackTest.fill(ma.segment(), 5);
            a.connect(qa, new InetSocketAddress(InetAddress.getByName("127.0.0.1"), b.port()), 5_000);
            assertEquals(QueuePair.OK, qa.postWrite(9, ma, 0, 1 << 20, mb.address(), mb.rkey(), QueuePair.SIGNALED));
            WorkCompletion wc = new WorkCompletion();
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!ca.poll(wc)) {
                assertTrue(System.nanoTime() < deadline, "no completion in 30 s");
                a.invoke();
            }
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(9, wc.wrId());
            stop.set(true);
            server.join(5_000);
            assertFalse(server.isAlive());
            assertEquals(-1L, ma.segment().mismatch(mb.segment()));
            assertNotNull(a.stats());
        }
    }
}
