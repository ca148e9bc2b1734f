package io.metaroce.net;

import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QpState;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The start-up race of a server (bench/net.sh hung on it): a client already retrying its CM_REQ reaches the server's
 * sockets after they are bound and before the server listens. A device opened with
 * {@link DeviceOptions#willListen} ignores such a request, so the retransmission finds the listener; a device
 * that never listens refuses at once with CONSUMER. The order is forced, not timed: the server listens only after
 * its connection manager has counted the ignored request.
 */
class CmListenRaceTest {
    private static DeviceOptions options() throws Exception {
        return new DeviceOptions().planes(LoopbackTest.planes(1)).port(0)
                .engine(DeviceOptions.realNetworkDefaults().paths(2));
    }

    @Test
    void aServerThatWillListenLetsAnEarlyRequestWaitForTheListener() throws Exception {
        try (Device a = Device.open(options()); Device b = Device.open(options().willListen(true))) {
            InetSocketAddress at = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), b.port());
            DeviceQp qa = a.createQp(a.allocPd(), a.createCq(64), a.createCq(64));
            CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> a.connect(qa, at, 10_000));
            long until = System.nanoTime() + 10_000_000_000L;
            while (b.cmCounters().get("CM_IGNORED") == 0 && !connected.isDone() && System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
            assertTrue(b.cmCounters().get("CM_IGNORED") > 0, "the early CM_REQ reached the server before it listened");
            ProtectionDomain pb = b.allocPd();
            DeviceCq cb = b.createCq(64);
            b.listen(pb, cb, cb);
            connected.get(15, TimeUnit.SECONDS); // throws if the attempt was refused
            DeviceQp qb = b.accept(5_000);
            assertNotNull(qb, "accepted after listening");
            assertEquals(QpState.RTS, qa.state());
            assertEquals(0, b.cmCounters().get("CM_REJECTS_SENT"));
        }
    }

    @Test
    void aDeviceThatNeverListensRefusesAtOnceWithConsumer() throws Exception {
        try (Device a = Device.open(options()); Device b = Device.open(options())) {
            InetSocketAddress at = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), b.port());
            DeviceQp qa = a.createQp(a.allocPd(), a.createCq(64), a.createCq(64));
            long t0 = System.nanoTime();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.connect(qa, at, 10_000));
            assertTrue(e.getMessage().contains("CONSUMER"), e.getMessage());
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "refused at once, not after the connect timeout");
            assertTrue(b.cmCounters().get("CM_REJECTS_SENT") >= 1, "refused");
        }
    }
}
