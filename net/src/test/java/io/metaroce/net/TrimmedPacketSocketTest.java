package io.metaroce.net;

import io.metaroce.core.Counter;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * REL-17 over real sockets: what a trimming switch leaves of a data packet (its 64 bytes of headers, marked with the
 * network's trimming DSCP) reaches the engine as trimmed, whose NAK TRIMMED goes to the peer; the same bytes without
 * the codepoint are a damaged datagram and dropped.
 */
class TrimmedPacketSocketTest {
    private static final int TRIM_DSCP = 9;

    @Test
    void aDatagramWithTheTrimmingCodepointIsNakedAndOneWithoutIsDropped() throws Exception {
        try (LoopbackTest.Pair p = new LoopbackTest.Pair(DeviceOptions.Transport.FFM, 2, 0, 1 << 16, TRIM_DSCP);
             DatagramChannel trimmed = DatagramChannel.open();
             DatagramChannel plain = DatagramChannel.open()) {
            trimmed.setOption(StandardSocketOptions.IP_TOS, TRIM_DSCP << 2);
            InetSocketAddress b = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), p.b.port());
            // the next PSN device b expects on path 0 from a: nothing has been sent yet
            int psn = p.qb.qp.path(0).rxCumPsn() + 1;
            MemorySegment s = MemorySegment.ofArray(new byte[BaseHeader.LENGTH + DataHeader.LENGTH]);
            new BaseHeader().wrap(s, 0).version(1).opcode(Opcode.WRITE).destQpn(p.qb.qpn()).srcQpn(p.qa.qpn())
                    .pathId(0).payloadLength(4096).psn(psn).psnFloor(psn);
            new DataHeader().wrap(s, BaseHeader.LENGTH).messageLength(8192).offset(4096).rkey(p.mb.rkey())
                    .va(p.mb.address());
            byte[] headers = s.toArray(ValueLayout.JAVA_BYTE);
            plain.send(ByteBuffer.wrap(headers), b);
            waitFor(() -> counter(p.b, Counter.DROP_BAD_CRC) >= 1, p); // its last 4 bytes are no CRC
            assertEquals(0, counter(p.b, Counter.RX_TRIMMED), "without the codepoint it is not trimmed");
            trimmed.send(ByteBuffer.wrap(headers), b);
            waitFor(() -> counter(p.b, Counter.RX_TRIMMED) >= 1 && counter(p.a, Counter.RX_NAKS) >= 1, p);
            assertEquals(1, counter(p.b, Counter.TX_NAKS), "one NAK TRIMMED");
            // a never sent that PSN: its requester finds the NAK stale, and the connection stays up
            waitFor(() -> counter(p.a, Counter.DROP_STALE_NAK) >= 1, p);
            assertEquals(0, counter(p.a, Counter.ERROR_COMPLETIONS));
        }
    }

    private static long counter(Device d, Counter c) {
        return d.stats().counters().getOrDefault(c, 0L);
    }

    private static void waitFor(java.util.function.BooleanSupplier done, LoopbackTest.Pair p)
            throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, () -> "not in 10 s:\n" + p.a.stats().format() + "\n"
                    + p.b.stats().format());
            Thread.sleep(2);
        }
    }
}
