package io.metaroce.net;

import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QpState;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device's connection manager over loopback UDP: an orderly close from either side (CM-10) moves both QPs to
 * ERROR and is answered; a second close is a no-op; many close at once; a garbled CM datagram is counted, not
 * answered.
 */
class CmLoopbackTest {
    private static DeviceOptions options() throws Exception {
        return new DeviceOptions().planes(LoopbackTest.planes(1)).port(0)
                .engine(DeviceOptions.realNetworkDefaults().paths(2));
    }

    @Test
    void eitherSideClosesInOrder() throws Exception {
        try (Device a = Device.open(options()); Device b = Device.open(options())) {
            ProtectionDomain pb = b.allocPd();
            DeviceCq cb = b.createCq(64);
            b.listen(pb, cb, cb);
            InetSocketAddress at = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), b.port());
            for (int round = 0; round < 2; round++) {
                DeviceQp qa = a.createQp(a.allocPd(), a.createCq(64), a.createCq(64));
                a.connect(qa, at, 5_000);
                DeviceQp qb = b.accept(5_000);
                assertNotNull(qb, "accepted");
                assertEquals(QpState.RTS, qa.state());
                DeviceQp closer = round == 0 ? qa : qb;
                DeviceQp other = round == 0 ? qb : qa;
                assertTrue((round == 0 ? a : b).disconnect(closer, 5_000), "the peer answered the CM_DREQ");
                assertEquals(QpState.ERROR, closer.state());
                long until = System.nanoTime() + 2_000_000_000L;
                while (other.state() != QpState.ERROR && System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
                assertEquals(QpState.ERROR, other.state(), "the peer's QP stops accepting data");
                assertFalse((round == 0 ? a : b).disconnect(closer, 1_000), "already closed");
            }
            Map<String, Long> ca = a.cmCounters();
            Map<String, Long> cbm = b.cmCounters();
            assertEquals(2, ca.get("CM_ESTABLISHED"));
            assertEquals(2, ca.get("CM_DISCONNECTS"));
            assertEquals(2, cbm.get("CM_DISCONNECTS"));
        }
    }

    /**
     * Closing many QPs at once (issue 11: perf's teardown of 4,000 QPs closed them one by one and waited out each
     * CM_DREQ, 25+ minutes when the peer was gone): with the peer there every close is answered; with the peer
     * gone the DREQs are waited out together, one wait for all, not one per QP.
     */
    @Test
    void manyQpsCloseAtOnceAndAGonePeerIsWaitedOutOnce() throws Exception {
        int n = 32;
        try (Device a = Device.open(options())) {
            java.util.List<DeviceQp> answered = new java.util.ArrayList<>();
            java.util.List<DeviceQp> orphaned = new java.util.ArrayList<>();
            java.util.List<DeviceQp> accepted = new java.util.ArrayList<>();
            try (Device b = Device.open(options())) {
                ProtectionDomain pb = b.allocPd();
                DeviceCq cb = b.createCq(4 * n);
                b.listen(pb, cb, cb);
                InetSocketAddress at = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), b.port());
                ProtectionDomain pa = a.allocPd();
                DeviceCq ca = a.createCq(4 * n);
                for (int i = 0; i < 2 * n; i++) {
                    DeviceQp q = a.createQp(pa, ca, ca);
                    a.connect(q, at, 5_000);
                    accepted.add(b.accept(5_000));
                    (i < n ? answered : orphaned).add(q);
                }
                assertEquals(java.util.List.of(), a.disconnectAll(answered, 10_000), "every peer answered");
                for (int i = 0; i < n; i++) {
                    assertEquals(QpState.ERROR, answered.get(i).state());
                    long until = System.nanoTime() + 2_000_000_000L;
                    while (accepted.get(i).state() != QpState.ERROR && System.nanoTime() - until < 0) {
                        Thread.onSpinWait();
                    }
                    assertEquals(QpState.ERROR, accepted.get(i).state(), "the peer's QP " + i + " closed");
                }
                assertEquals(n, b.cmCounters().get("CM_DISCONNECTS"));
            } // b is gone: nobody answers the other half's DREQs
            long waitMs = 1_000;
            long t0 = System.nanoTime();
            java.util.List<DeviceQp> unanswered = a.disconnectAll(orphaned, waitMs);
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(orphaned, unanswered, "nobody answered");
            assertTrue(tookMs < 6 * waitMs, n + " closes took " + tookMs + " ms: waited one after the other ("
                    + n * waitMs + " ms), not together");
            for (DeviceQp q : orphaned) {
                assertEquals(QpState.ERROR, q.state(), "closed locally all the same");
            }
        }
    }

    @Test
    void aGarbledCmDatagramIsCountedNotAnswered() throws Exception {
        try (Device b = Device.open(options()); DatagramSocket s = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            ProtectionDomain pb = b.allocPd();
            DeviceCq cb = b.createCq(64);
            b.listen(pb, cb, cb);
            byte[] junk = new byte[86];
            junk[0] = 1 << 4;
            junk[BaseHeader.OPCODE] = (byte) Opcode.CM_REQ; // a CM opcode, but no valid CRC
            s.send(new DatagramPacket(junk, junk.length, InetAddress.getByName("127.0.0.1"), b.port()));
            long until = System.nanoTime() + 2_000_000_000L;
            while (b.cmCounters().get("CM_RX_PACKETS") == 0 && System.nanoTime() - until < 0) {
                Thread.sleep(5);
            }
            Map<String, Long> c = b.cmCounters();
            assertEquals(1, c.get("CM_RX_PACKETS"));
            assertEquals(1, c.get("CM_DROP_BAD_CRC") + c.get("CM_DROP_BAD_VERSION") + c.get("CM_DROP_TRUNCATED")
                    + c.get("CM_DROP_BAD_LENGTH"), c.toString());
            assertEquals(0, c.get("CM_TX_PACKETS"));
        }
    }
}
