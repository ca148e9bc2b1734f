package io.metaroce.core.wire;

import io.metaroce.core.auth.AuthKeys;
import io.metaroce.core.auth.CmAuth;
import io.metaroce.core.auth.PacketAuth;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * AUTH-2 .. AUTH-5: the AUTH vectors of docs/spec/10-auth.md, both ways. The code seals the stated inputs into the
 * page's bytes; the page's bytes pass WIRE-8 and open, with the receiver's keys, into the version 1 vector they
 * seal (tag verified, payload decrypted); and any one bit changed before the CRC (re-sealed) fails to open.
 */
class AuthVectorsTest {
    @Test
    void thePageShowsWhatTheCodeSeals() throws IOException {
        if (Boolean.getBoolean("golden.regenerate")) {
            AuthVectors.updatePage();
        }
        String page = Files.readString(AuthVectors.page(), StandardCharsets.UTF_8);
        assertEquals(AuthVectors.markdown(), AuthVectors.section(page),
                "docs/spec/10-auth.md's vectors are not what the code seals (regenerate only for a deliberate change)");
    }

    @Test
    void thePagesBytesOpenIntoTheVersion1Vectors() throws IOException {
        List<byte[]> dumps = dumps(Files.readString(AuthVectors.page(), StandardCharsets.UTF_8));
        assertEquals(AuthVectors.Sealed.values().length + 2, dumps.size(), "TV-20 .. TV-24");
        for (AuthVectors.Sealed v : AuthVectors.Sealed.values()) {
            byte[] wire = dumps.get(v.ordinal());
            assertEquals(Packet.OK, new Packet().check(MemorySegment.ofArray(wire), wire.length), v.name());
            byte[] opened = wire.clone();
            MemorySegment seg = MemorySegment.ofArray(opened);
            int path = new BaseHeader().wrap(seg, 0).pathId();
            assertEquals(PacketAuth.OK, receiver(v).open(seg, opened.length, path), v.name());
            byte[] plain = v.plain.build();
            int end = plain.length - Packet.CRC_LENGTH;
            new BaseHeader().wrap(seg, 0).flags(new BaseHeader().wrap(MemorySegment.ofArray(plain), 0).flags());
            assertArrayEquals(Arrays.copyOf(plain, end), Arrays.copyOf(opened, end), v.name() + " opens into "
                    + v.plain.name());
            if (v.encrypt) {
                assertNotEquals(-1, Arrays.mismatch(Arrays.copyOf(plain, end), Arrays.copyOf(wire, end)),
                        "an encrypted payload differs on the wire");
            }
            // and a replay of it is refused (AUTH-7)
            PacketAuth once = receiver(v);
            assertEquals(PacketAuth.OK, once.open(MemorySegment.ofArray(wire.clone()), wire.length, path));
            assertEquals(PacketAuth.REPLAY, once.open(MemorySegment.ofArray(wire.clone()), wire.length, path));
        }
    }

    @Test
    void everyBitBeforeTheCrcIsCovered() {
        for (AuthVectors.Sealed v : AuthVectors.Sealed.values()) {
            byte[] wire = v.build();
            for (int bit = 0; bit < (wire.length - Packet.CRC_LENGTH) * 8; bit++) {
                byte[] d = wire.clone();
                d[bit / 8] ^= (byte) (1 << (bit % 8));
                MemorySegment seg = MemorySegment.ofArray(d);
                new Packet().seal(seg, d.length - Packet.CRC_LENGTH);
                if (new Packet().check(seg, d.length) != Packet.OK) {
                    continue; // opcode or length bits: WIRE-8 drops it first
                }
                int path = new BaseHeader().wrap(seg, 0).pathId();
                int r = path < 64 ? receiver(v).open(seg, d.length, path) : PacketAuth.BAD_TAG;
                assertNotEquals(PacketAuth.OK, r, v.name() + ": bit " + bit + " changed and still opens");
            }
        }
    }

    @Test
    void theSealedCmMessageOpensIntoTv14AndEveryBitCounts() throws IOException {
        List<byte[]> dumps = dumps(Files.readString(AuthVectors.page(), StandardCharsets.UTF_8));
        byte[] wire = dumps.get(AuthVectors.Sealed.values().length);
        MemorySegment seg = MemorySegment.ofArray(wire);
        assertEquals(Packet.OK, new Packet().check(seg, wire.length));
        CmAuth opener = new CmAuth(AuthVectors.psk());
        assertEquals(CmAuth.OK, opener.open(seg, wire.length), "TV-23 verifies under K_cm");
        assertEquals(AuthVectors.CM_COUNTER, CmAuth.counter(seg, wire.length));
        byte[] plain = GoldenVectors.Vector.CM_DREQ.build();
        int end = plain.length - Packet.CRC_LENGTH;
        byte[] message = Arrays.copyOf(wire, end);
        message[3] &= ~BaseHeader.FLAG_AUTH;
        assertArrayEquals(Arrays.copyOf(plain, end), message, "TV-23 is TV-14 with flag AUTH and the trailer");
        assertEquals(CmAuth.BAD_TAG, new CmAuth("another pre-shared key, 32 bytes".getBytes(StandardCharsets.US_ASCII))
                .open(seg, wire.length), "another PSK");
        for (int bit = 0; bit < (wire.length - Packet.CRC_LENGTH) * 8; bit++) {
            byte[] d = wire.clone();
            d[bit / 8] ^= (byte) (1 << (bit % 8));
            MemorySegment m = MemorySegment.ofArray(d);
            new Packet().seal(m, d.length - Packet.CRC_LENGTH);
            if (new Packet().check(m, d.length) != Packet.OK) {
                continue; // opcode or length bits: WIRE-8 drops it first
            }
            assertNotEquals(CmAuth.OK, opener.open(m, d.length), "bit " + bit + " changed and still verifies");
        }
    }

    @Test
    void theWriteUnderTheNextKeyOpensOnlyWithIt() throws IOException {
        List<byte[]> dumps = dumps(Files.readString(AuthVectors.page(), StandardCharsets.UTF_8));
        byte[] wire = dumps.getLast();
        assertArrayEquals(AuthVectors.updatedWrite(), wire, "TV-24 as the code seals it");
        MemorySegment seg = MemorySegment.ofArray(wire.clone());
        assertEquals(Packet.OK, new Packet().check(seg, wire.length));
        PacketAuth b = new PacketAuth(AuthVectors.keys(false, false), 64);
        assertEquals(PacketAuth.UPDATED, b.open(seg, wire.length, 0), "TV-24 moves B to K_i2r,1 (AUTH-19)");
        assertEquals(1, b.rxKeyGeneration());
        byte[] plain = GoldenVectors.Vector.WRITE.build();
        int end = plain.length - Packet.CRC_LENGTH;
        byte[] message = Arrays.copyOf(wire, end);
        assertEquals(BaseHeader.FLAG_AUTH | BaseHeader.FLAG_KEY_PHASE, (message[3] & 0x70), "AUTH and KEY_PHASE");
        message[3] &= ~(BaseHeader.FLAG_AUTH | BaseHeader.FLAG_KEY_PHASE);
        assertArrayEquals(Arrays.copyOf(plain, end), message, "TV-24 is TV-1 with AUTH, KEY_PHASE and the trailer");
        AuthKeys raw = AuthVectors.keys(false, false);
        assertEquals(PacketAuth.BAD_TAG, new PacketAuth(new AuthKeys(raw.txKey(), raw.rxKey(), false), 64)
                .open(MemorySegment.ofArray(wire.clone()), wire.length, 0), "not under K_i2r");
        assertArrayEquals(AuthVectors.i2rSchedule()[0], AuthVectors.keys(true, false).txUpdateSecret(), "S_i2r,0");
    }

    private static PacketAuth receiver(AuthVectors.Sealed v) {
        return new PacketAuth(AuthVectors.keys(!v.fromInitiator, v.encrypt), 64);
    }

    private static List<byte[]> dumps(String page) {
        Matcher m = Pattern.compile("```text\n(.*?)```", Pattern.DOTALL).matcher(AuthVectors.section(page));
        List<byte[]> out = new ArrayList<>();
        while (m.find()) {
            out.add(GoldenVectors.parseDump(m.group(1)));
        }
        return out;
    }
}
