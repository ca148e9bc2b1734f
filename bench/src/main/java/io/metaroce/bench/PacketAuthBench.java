package io.metaroce.bench;

import io.metaroce.core.auth.AuthKeys;
import io.metaroce.core.auth.PacketAuth;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link PacketAuth} alone, without the engine: one op seals one WRITE packet of {@code payload} bytes at the
 * sender and opens it at the receiver (AUTH-2 … AUTH-7), on 8 paths in turn, in the kind of buffer the datapath
 * uses ({@code native}: an off-heap segment, as the UDP datapath's; {@code heap}: a segment over a byte array, as
 * the simulator's). With {@code -prof gc} it gives the bytes allocated per sealed-and-opened packet, the figure the
 * engine's "no allocation per packet" rule is about. {@code bench/auth.sh} runs it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
public class PacketAuthBench {
    /** "tag" (payload in clear, AUTH-5) or "encrypt" (payload encrypted). */
    @Param({"tag", "encrypt"})
    public String auth;

    /** Payload bytes per packet. */
    @Param({"4096"})
    public int payload;

    /** "native" (off-heap segment) or "heap" (segment over a byte array). */
    @Param({"native", "heap"})
    public String memory;

    private static final int PATHS = 8;
    private Arena arena;
    private MemorySegment packet;
    private PacketAuth sender;
    private PacketAuth receiver;
    private int length;
    private int path;

    @Setup(Level.Trial)
    public void setup() {
        boolean encrypt = switch (auth) {
            case "tag" -> false;
            case "encrypt" -> true;
            default -> throw new IllegalArgumentException("auth must be tag or encrypt");
        };
        byte[] psk = new byte[32];
        sender = new PacketAuth(AuthKeys.derive(psk, 7, 1, 2, 1000, 5000, true, encrypt), PATHS);
        receiver = new PacketAuth(AuthKeys.derive(psk, 7, 1, 2, 1000, 5000, false, encrypt), PATHS);
        length = BaseHeader.LENGTH + Opcode.extensionLength(Opcode.WRITE) + payload;
        int capacity = length + PacketAuth.TRAILER_LENGTH + Packet.CRC_LENGTH;
        arena = Arena.ofConfined();
        packet = switch (memory) {
            case "native" -> arena.allocate(capacity, 64);
            case "heap" -> MemorySegment.ofArray(new byte[capacity]);
            default -> throw new IllegalArgumentException("memory must be native or heap");
        };
        new BaseHeader().wrap(packet, 0).version(1).opcode(Opcode.WRITE).payloadLength(payload).destQpn(2).srcQpn(1);
        for (int i = 0; i < payload; i++) {
            packet.set(java.lang.foreign.ValueLayout.JAVA_BYTE, length - payload + i, (byte) i);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** Seals one packet and opens it again (encrypting mode: the payload is plaintext again afterwards). */
    @Benchmark
    public int sealAndOpen() {
        int p = path;
        path = (p + 1) % PATHS;
        int sealed = sender.seal(packet, length, p);
        int r = receiver.open(packet, sealed + Packet.CRC_LENGTH, p);
        if (r != PacketAuth.OK) {
            throw new IllegalStateException("open: " + PacketAuth.resultName(r));
        }
        return sealed;
    }
}
