package io.metaroce.core.auth;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;

import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals and opens connection-manager messages (spec AUTH-11 .. AUTH-16): HMAC-SHA256 under the CM key
 * {@code K_cm} derived from the pre-shared key alone (every connection and device of a trust domain shares it),
 * the tag truncated to 16 bytes, in the same 24-byte trailer as AUTH-2 (tag, then the sender's 64-bit CM message
 * counter). The tag covers every byte from the base header to the end of the CM extension (its planes included,
 * flag {@code AUTH} set) and then the counter. One instance per connection manager, used on its thread only;
 * the {@link Mac} is keyed once, a CM message costs one HMAC and no allocation here.
 */
public final class CmAuth {
    /** Length of the truncated HMAC-SHA256 tag in bytes. */
    public static final int TAG_LENGTH = 16;
    /** The trailer: tag, then the CM message counter (AUTH-2's layout, AUTH-12). */
    public static final int TRAILER_LENGTH = PacketAuth.TRAILER_LENGTH;
    /** Length of {@code K_cm} in bytes. */
    public static final int KEY_LENGTH = 32;
    /** HKDF salt of {@code K_cm} (AUTH-11). */
    static final byte[] SALT = "MetaRoCE CM v1".getBytes(StandardCharsets.US_ASCII);
    /** HKDF info of {@code K_cm} (AUTH-11). */
    static final byte[] INFO = "MetaRoCE CM MAC".getBytes(StandardCharsets.US_ASCII);

    /** {@link #open} result: the tag verifies. */
    public static final int OK = 0;
    /** {@link #open} result: no trailer (flag {@code AUTH} clear, or the datagram has its natural length). */
    public static final int UNSEALED = 1;
    /** {@link #open} result: the tag does not verify (forged, altered, another key). */
    public static final int BAD_TAG = 2;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private final Mac mac;
    private final BaseHeader base = new BaseHeader();
    private final byte[] full = new byte[32];
    private final byte[] counterBytes = new byte[8];
    private final byte[] carried = new byte[TAG_LENGTH];
    /** Where a native segment's bytes are hashed from (a CM message is at most 352 bytes before its trailer). */
    private final byte[] scratch = new byte[1024];

    /** A sealer and opener under the CM key of {@code psk} (16..64 bytes). */
    public CmAuth(byte[] psk) {
        byte[] k = deriveKey(psk);
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(k, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no HmacSHA256", e);
        } finally {
            Arrays.fill(k, (byte) 0);
        }
    }

    /** AUTH-11: {@code K_cm = HKDF-Expand(HKDF-Extract("MetaRoCE CM v1", psk), "MetaRoCE CM MAC", 32)}. */
    public static byte[] deriveKey(byte[] psk) {
        AuthKeys.checkPsk(psk);
        byte[] prk = Hkdf.extract(SALT, psk);
        byte[] k = Hkdf.expand(prk, INFO, KEY_LENGTH);
        Arrays.fill(prk, (byte) 0);
        return k;
    }

    /**
     * Seals the CM datagram in {@code seg[0, length)} (base header and CM extension, no CRC yet): sets flag
     * {@code AUTH}, writes the tag and {@code counter} after it and returns the new length (still without the
     * CRC, which the caller adds). {@code seg} must have room for {@link #TRAILER_LENGTH} more bytes.
     */
    public int seal(MemorySegment seg, int length, long counter) {
        base.wrap(seg, 0).flags(base.flags() | BaseHeader.FLAG_AUTH);
        seg.set(U64, length + TAG_LENGTH, counter);
        tag(seg, length, counter);
        MemorySegment.copy(MemorySegment.ofArray(full), 0, seg, length, TAG_LENGTH);
        return length + TRAILER_LENGTH;
    }

    /**
     * Whether the CM datagram {@code seg[0, length)} (CRC included; it passed WIRE-8) carries a trailer: flag
     * {@code AUTH} and 24 bytes more than its base header, CM extension and CRC.
     */
    public static boolean sealed(MemorySegment seg, int length) {
        BaseHeader b = new BaseHeader().wrap(seg, 0);
        return isSealed(b, length);
    }

    private static boolean isSealed(BaseHeader b, int length) {
        int ext = Opcode.extensionLength(b.opcode());
        return (b.flags() & BaseHeader.FLAG_AUTH) != 0
                && length == BaseHeader.LENGTH + ext + b.payloadLength() + TRAILER_LENGTH + Packet.CRC_LENGTH;
    }

    /**
     * Verifies the CM datagram {@code seg[0, length)} (CRC included; it passed WIRE-8): {@link #OK},
     * {@link #UNSEALED} or {@link #BAD_TAG}. The tag is compared in constant time.
     */
    public int open(MemorySegment seg, int length) {
        base.wrap(seg, 0);
        if (!isSealed(base, length)) {
            return UNSEALED;
        }
        int end = length - Packet.CRC_LENGTH - TRAILER_LENGTH;
        if (end > scratch.length) {
            return BAD_TAG; // longer than any CM message (16 planes): never sealed by a peer, not worth a MAC
        }
        long counter = seg.get(U64, end + TAG_LENGTH);
        tag(seg, end, counter);
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, end, carried, 0, TAG_LENGTH);
        int diff = 0;
        for (int i = 0; i < TAG_LENGTH; i++) { // constant time: every byte is compared
            diff |= full[i] ^ carried[i];
        }
        return diff == 0 ? OK : BAD_TAG;
    }

    /** The counter of a sealed datagram of {@code length} bytes (CRC included). */
    public static long counter(MemorySegment seg, int length) {
        return seg.get(U64, length - Packet.CRC_LENGTH - 8);
    }

    /** HMAC-SHA256 of {@code seg[0, end)} then the counter, into {@link #full}. */
    private void tag(MemorySegment seg, int end, long counter) {
        if (end > scratch.length) {
            throw new IllegalArgumentException("a CM datagram of " + end + " bytes");
        }
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, 0, scratch, 0, end);
        mac.update(scratch, 0, end);
        for (int i = 0; i < 8; i++) {
            counterBytes[i] = (byte) (counter >>> (56 - 8 * i));
        }
        mac.update(counterBytes);
        try {
            mac.doFinal(full, 0);
        } catch (ShortBufferException e) {
            throw new IllegalStateException(e);
        }
    }
}
