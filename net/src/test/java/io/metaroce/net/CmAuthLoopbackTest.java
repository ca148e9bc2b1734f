package io.metaroce.net;

import io.metaroce.core.Access;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WorkCompletion;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AUTH-13 on the real datapath: two devices on loopback UDP connect through a relay that carries their CM traffic
 * (so the listener knows the relay's address as the initiator's CM address: the position of an attacker who can
 * send from it). From there the test sends a forged CM_DREQ naming the live connection: unsealed, and sealed
 * under another key. With a pre-shared key on both devices the listener drops both (CM_DROP_AUTH), its QP stays
 * in RTS and a WRITE still completes; without keys the same unsealed datagram ends the connection (the check
 * this test makes can fail).
 */
class CmAuthLoopbackTest {
    private static final byte[] PSK = "a pre-shared key of this test, 32B".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OTHER = "another key, not the devices' one".getBytes(StandardCharsets.US_ASCII);

    private static DeviceOptions options(byte[] psk) throws Exception {
        return new DeviceOptions().planes(LoopbackTest.planes(1)).port(0).authKey(psk)
                .engine(DeviceOptions.realNetworkDefaults().paths(2));
    }

    /** Forwards CM datagrams between the initiator (whoever sent last from elsewhere) and the listener. */
    private static final class Relay implements AutoCloseable {
        final DatagramSocket socket;
        final InetSocketAddress listener;
        volatile InetSocketAddress initiator;
        volatile byte[] lastRequest;
        private final Thread thread;

        Relay(InetSocketAddress listener) throws SocketException {
            this.socket = new DatagramSocket(0, listener.getAddress());
            this.socket.setSoTimeout(50);
            this.listener = listener;
            this.thread = Thread.ofPlatform().daemon().name("cm-relay").start(this::run);
        }

        private void run() {
            byte[] buf = new byte[2048];
            while (!socket.isClosed()) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    socket.receive(p);
                    InetSocketAddress from = (InetSocketAddress) p.getSocketAddress();
                    if (from.equals(listener)) {
                        if (initiator != null) {
                            socket.send(new DatagramPacket(p.getData(), p.getLength(), initiator));
                        }
                    } else {
                        initiator = from;
                        if ((buf[BaseHeader.OPCODE] & 0xFF) == Opcode.CM_REQ) {
                            lastRequest = java.util.Arrays.copyOf(buf, p.getLength());
                        }
                        socket.send(new DatagramPacket(p.getData(), p.getLength(), listener));
                    }
                } catch (SocketTimeoutException e) {
                    // poll again
                } catch (java.io.IOException e) {
                    return;
                }
            }
        }

        /** Sends {@code d} to the listener from the relay's address (the initiator's CM address, as it knows it). */
        void inject(byte[] d) throws java.io.IOException {
            socket.send(new DatagramPacket(d, d.length, listener));
        }

        @Override
        public void close() {
            socket.close();
            try {
                thread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void aForgedDisconnectDoesNotEndAnAuthenticatedConnection() throws Exception {
        Map<String, Long> c = run(PSK);
        assertEquals(2, c.get("CM_DROP_AUTH"), c.toString());
        assertEquals(0, c.get("CM_DISCONNECTS"), c.toString());
    }

    @Test
    void withoutKeysTheSameForgeryEndsIt() throws Exception {
        Map<String, Long> c = run(null);
        assertEquals(1, c.get("CM_DISCONNECTS"), c.toString());
    }

    /** Connects through the relay, injects the forgeries, checks the connection; returns the listener's counters. */
    private static Map<String, Long> run(byte[] psk) throws Exception {
        try (Device a = Device.open(options(psk)); Device b = Device.open(options(psk))) {
            ProtectionDomain pb = b.allocPd();
            DeviceCq cb = b.createCq(64);
            b.listen(pb, cb, cb);
            InetSocketAddress at = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), b.port());
            try (Relay relay = new Relay(at)) {
                ProtectionDomain pa = a.allocPd();
                DeviceCq ca = a.createCq(64);
                DeviceQp qa = a.createQp(pa, ca, ca);
                a.connect(qa, new InetSocketAddress(at.getAddress(), relay.socket.getLocalPort()), 5_000);
                DeviceQp qb = b.accept(5_000);
                assertNotNull(qb, "accepted through the relay");
                assertNotNull(relay.lastRequest);
                long cid = ByteBuffer.wrap(relay.lastRequest).getLong(BaseHeader.LENGTH);
                CmMessage dreq = new CmMessage(Opcode.CM_DREQ, cid, qa.qpn(), qb.qpn(), 0, 0, 0, 0, 0, 0, List.of());
                relay.inject(datagram(dreq, null));
                if (psk != null) {
                    relay.inject(datagram(dreq, new io.metaroce.core.auth.CmAuth(OTHER)));
                }
                long until = System.nanoTime() + 2_000_000_000L;
                while (System.nanoTime() - until < 0 && (psk != null ? b.cmCounters().get("CM_DROP_AUTH") < 2
                        : qb.state() == QpState.RTS)) {
                    Thread.sleep(5);
                }
                if (psk == null) {
                    assertEquals(QpState.ERROR, qb.state(), "a version 1 listener believes the forgery");
                    return b.cmCounters();
                }
                assertEquals(QpState.RTS, qb.state(), "AUTH-13: the forged CM_DREQs changed nothing");
                assertEquals(QpState.RTS, qa.state());
                MemoryRegion src = a.registerMemory(pa, Arena.ofAuto().allocate(65536, 4096), Access.ALL);
                MemoryRegion dst = b.registerMemory(pb, Arena.ofAuto().allocate(65536, 4096), Access.ALL);
                src.segment().fill((byte) 0x5A);
                assertEquals(QueuePair.OK, qa.postWrite(1, src, 0, 65536, dst.address(), dst.rkey(),
                        QueuePair.SIGNALED));
                WorkCompletion wc = new WorkCompletion();
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (!ca.poll(wc)) {
                    assertTrue(System.nanoTime() - deadline < 0, "the WRITE did not complete");
                    Thread.onSpinWait();
                }
                assertEquals("SUCCESS", wc.status().name());
                assertEquals(-1, src.segment().mismatch(dst.segment()), "the data arrived");
                return b.cmCounters();
            }
        }
    }

    /** {@code m} as a CM datagram with its CRC, sealed by {@code auth} (null: unsealed, as version 1 sends it). */
    private static byte[] datagram(CmMessage m, io.metaroce.core.auth.CmAuth auth) {
        byte[] b = new byte[256];
        MemorySegment seg = MemorySegment.ofArray(b);
        int ext = m.encodedLength();
        new BaseHeader().wrap(seg, 0).version(Packet.VERSION).opcode(m.opcode()).flags(0).destQpn(m.peerQpn())
                .pathId(0).payloadLength(0).psn(0).psnFloor(0).srcQpn(m.senderQpn()).timestampNs(1);
        m.emit(seg, BaseHeader.LENGTH);
        int len = BaseHeader.LENGTH + ext;
        if (auth != null) {
            len = auth.seal(seg, len, 1);
        }
        len = new Packet().seal(seg, len);
        return java.util.Arrays.copyOf(b, len);
    }
}
