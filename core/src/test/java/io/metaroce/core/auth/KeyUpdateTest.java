package io.metaroce.core.auth;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AUTH-17 .. AUTH-19 on the authenticator alone (sans-IO): a sender's key update is followed by its receiver on
 * the first packet under the next key; late packets of the previous key are still accepted on every path, also on
 * a path that has seen no packet of the new key yet; packets two generations old are {@code RETIRED}; a forged
 * phase flip neither verifies nor moves the keys; keys without update secrets never update.
 */
class KeyUpdateTest {
    private static final byte[] PSK = "a pre-shared key of 32 bytes!!!!".getBytes(StandardCharsets.US_ASCII);
    private static final int PAYLOAD = 40;

    private static AuthKeys keys(boolean initiator, boolean encrypt) {
        return AuthKeys.derive(PSK, 77, 0xa01, 0xb02, 1000, 2000, initiator, encrypt);
    }

    /** A sealed WRITE on {@code path} from {@code tx}, payload bytes all {@code fill}; CRC space included. */
    private static byte[] packet(PacketAuth tx, int path, int fill) {
        int headers = BaseHeader.LENGTH + Opcode.extensionLength(Opcode.WRITE);
        byte[] b = new byte[headers + PAYLOAD + PacketAuth.TRAILER_LENGTH + Packet.CRC_LENGTH];
        MemorySegment s = MemorySegment.ofArray(b);
        new BaseHeader().wrap(s, 0).version(1).opcode(Opcode.WRITE).pathId(path).payloadLength(PAYLOAD)
                .destQpn(0xb02).srcQpn(0xa01);
        java.util.Arrays.fill(b, headers, headers + PAYLOAD, (byte) fill);
        tx.seal(s, headers + PAYLOAD, path);
        return b;
    }

    private static int open(PacketAuth rx, byte[] d) {
        MemorySegment s = MemorySegment.ofArray(d.clone());
        return rx.open(s, d.length, new BaseHeader().wrap(s, 0).pathId());
    }

    private static boolean phase(byte[] d) {
        return (d[3] & BaseHeader.FLAG_KEY_PHASE) != 0;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theReceiverFollowsAnUpdateAndStillAcceptsLatePacketsOfThePreviousKeyOnEveryPath(boolean encrypt) {
        PacketAuth a = new PacketAuth(keys(true, encrypt), 4);
        PacketAuth b = new PacketAuth(keys(false, encrypt), 4);
        byte[] old0 = packet(a, 0, 1);
        byte[] old1 = packet(a, 1, 2); // path 1's number 0, still in flight when the update happens
        byte[] old1b = packet(a, 1, 3);
        assertFalse(phase(old0));
        assertEquals(3, a.sealedUnderKey());
        a.updateTxKey();
        assertEquals(1, a.txKeyGeneration());
        assertEquals(0, a.sealedUnderKey());
        byte[] new0 = packet(a, 0, 4);
        byte[] new1 = packet(a, 1, 5);
        assertTrue(phase(new0), "AUTH-17: KEY_PHASE set under generation 1");
        assertEquals(PacketAuth.OK, open(b, old0));
        assertEquals(PacketAuth.UPDATED, open(b, new0), "the first packet under the next key moves the keys");
        assertEquals(1, b.rxKeyGeneration());
        // path 1 has accepted nothing yet: its late packets of generation 0 are numbered above anything seen there
        assertEquals(PacketAuth.OK, open(b, old1b));
        assertEquals(PacketAuth.OK, open(b, old1));
        assertEquals(PacketAuth.OK, open(b, new1));
        assertEquals(1, b.rxKeyGeneration());
        assertEquals(PacketAuth.REPLAY, open(b, old1), "AUTH-7 across a key update");
    }

    @Test
    void anEncryptedPayloadUnderTheNextKeyDecrypts() {
        PacketAuth a = new PacketAuth(keys(true, true), 1);
        PacketAuth b = new PacketAuth(keys(false, true), 1);
        a.updateTxKey();
        a.updateTxKey(); // a sender may not run ahead like this (AUTH-18): the receiver has no key for it
        byte[] d = packet(a, 0, 9);
        assertEquals(PacketAuth.BAD_TAG, open(b, d), "generation 2 before 1 cannot be opened");
        PacketAuth a2 = new PacketAuth(keys(true, true), 1);
        a2.updateTxKey();
        byte[] e = packet(a2, 0, 9);
        MemorySegment s = MemorySegment.ofArray(e);
        assertEquals(PacketAuth.UPDATED, b.open(s, e.length, 0));
        byte[] plain = new byte[PAYLOAD];
        java.util.Arrays.fill(plain, (byte) 9);
        int headers = BaseHeader.LENGTH + Opcode.extensionLength(Opcode.WRITE);
        assertArrayEquals(plain, java.util.Arrays.copyOfRange(e, headers, headers + PAYLOAD));
    }

    @Test
    void packetsTwoGenerationsOldAreRetiredDropsAndTheNextUpdatesFollow() {
        PacketAuth a = new PacketAuth(keys(true, false), 2);
        PacketAuth b = new PacketAuth(keys(false, false), 2);
        byte[] g0 = packet(a, 0, 1);
        byte[] g0late = packet(a, 0, 2);
        assertEquals(PacketAuth.OK, open(b, g0));
        for (int gen = 1; gen <= 5; gen++) {
            a.updateTxKey();
            assertEquals(PacketAuth.UPDATED, open(b, packet(a, 0, gen)), "generation " + gen);
            assertEquals(PacketAuth.OK, open(b, packet(a, 1, gen)));
            assertEquals(gen, b.rxKeyGeneration());
            if (gen == 2) {
                // g0late has the current phase bit and a number below those accepted before generation 2
                assertEquals(PacketAuth.RETIRED, open(b, g0late), "AUTH-19: sealed under a retired key");
            }
        }
    }

    @Test
    void aForgedPhaseFlipIsABadTagAndDoesNotMoveTheKeys() {
        PacketAuth a = new PacketAuth(keys(true, false), 1);
        PacketAuth b = new PacketAuth(keys(false, false), 1);
        byte[] d = packet(a, 0, 1);
        byte[] flipped = d.clone();
        flipped[3] ^= BaseHeader.FLAG_KEY_PHASE;
        assertEquals(PacketAuth.BAD_TAG, open(b, flipped), "the phase bit is covered by the tag (AUTH-5)");
        assertEquals(0, b.rxKeyGeneration());
        assertEquals(PacketAuth.OK, open(b, d), "the window did not move: the real packet is still fresh");
        byte[] later = packet(a, 0, 2);
        assertEquals(PacketAuth.OK, open(b, later));
    }

    @Test
    void keysGivenWithoutUpdateSecretsNeverUpdate() {
        AuthKeys k = keys(true, false);
        PacketAuth raw = new PacketAuth(new AuthKeys(k.txKey(), k.rxKey(), false), 1);
        assertFalse(raw.canUpdateKey());
        assertThrows(IllegalStateException.class, raw::updateTxKey);
        PacketAuth a = new PacketAuth(k, 1);
        assertTrue(a.canUpdateKey());
        PacketAuth rawRx = new PacketAuth(new AuthKeys(keys(false, false).txKey(), keys(false, false).rxKey(), false), 1);
        a.updateTxKey();
        assertEquals(PacketAuth.BAD_TAG, open(rawRx, packet(a, 0, 1)), "no next key to open it with");
    }

    @Test
    void everyGenerationHasItsOwnKeyAndEachDirectionItsOwnChain() {
        AuthKeys ka = keys(true, false);
        AuthKeys kb = keys(false, false);
        assertArrayEquals(ka.txUpdateSecret(), kb.rxUpdateSecret());
        assertArrayEquals(ka.rxUpdateSecret(), kb.txUpdateSecret());
        assertNotEquals(java.util.HexFormat.of().formatHex(ka.txUpdateSecret()),
                java.util.HexFormat.of().formatHex(ka.rxUpdateSecret()));
        KeyRatchet r = new KeyRatchet(ka.txUpdateSecret());
        java.util.Set<String> seen = new java.util.HashSet<>();
        seen.add(java.util.HexFormat.of().formatHex(ka.txKey()));
        for (int i = 1; i <= 20; i++) {
            assertTrue(seen.add(java.util.HexFormat.of().formatHex(r.step().getEncoded())), "generation " + i);
        }
    }
}
