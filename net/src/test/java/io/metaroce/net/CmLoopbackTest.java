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
 * ERROR and is answered; a second close is a no-op; a garbled CM datagram is counted, not answered.
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
