package io.metaroce.conformance;

import io.metaroce.conformance.target.TesterConstants;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The tester's side of an authenticated connection (spec section 10), written from the spec alone (not the
 * engine's {@code PacketAuth}): HKDF-SHA256 keys (AUTH-3), AES-128-GCM seals with chosen sequence numbers
 * (AUTH-2, AUTH-4, AUTH-5) and opening of what the IUT sends. The tester is the connection's initiator.
 */
final class AuthTester {
    static final int FLAG_AUTH = 0x0010;
    static final int FLAG_ENCRYPTED = 0x0020;
    static final int FLAG_KEY_PHASE = 0x0040;
    static final int TRAILER = 24;

    /** AUTH-17: the tester's keys by generation (index = generation), grown on demand. */
    private final java.util.List<byte[]> txKeys = new java.util.ArrayList<>();
    private final java.util.List<byte[]> rxKeys = new java.util.ArrayList<>();
    private byte[] txSecret;
    private byte[] rxSecret;
    /** AUTH-19 from the tester's side: the generation of the IUT's key the tester opens with now. */
    private int rxGeneration;
    /** The generation that opened the last datagram {@link #open} verified. */
    int lastOpenedGeneration;
    private final byte[] wrongKey;
    final boolean encrypt;
    private final Map<Integer, Long> nextSeq = new HashMap<>();

    private AuthTester(byte[] psk, long cid, int iutQpn, int testerPsn, int iutPsn, boolean encrypt) {
        byte[] prk = prk(psk, cid, iutQpn, testerPsn, iutPsn);
        txKeys.add(expand(prk, "MetaRoCE AUTH v1 initiator to responder", 16));
        rxKeys.add(expand(prk, "MetaRoCE AUTH v1 responder to initiator", 16));
        txSecret = expand(prk, "MetaRoCE AUTH v1 initiator to responder update", 32);
        rxSecret = expand(prk, "MetaRoCE AUTH v1 responder to initiator update", 32);
        this.wrongKey = expand(prk("not the pre-shared key of this connection".getBytes(StandardCharsets.US_ASCII),
                cid, iutQpn, testerPsn, iutPsn), "MetaRoCE AUTH v1 initiator to responder", 16);
        this.encrypt = encrypt;
    }

    /** AUTH-17: the tester's key of generation {@code g} (S_{n+1} = Expand(S_n, "key update"), K = Expand(S, "key")). */
    private byte[] txKey(int g) {
        while (txKeys.size() <= g) {
            txSecret = expand(txSecret, "MetaRoCE AUTH v1 key update", 32);
            txKeys.add(expand(txSecret, "MetaRoCE AUTH v1 key", 16));
        }
        return txKeys.get(g);
    }

    /** AUTH-17: the IUT's key of generation {@code g}. */
    private byte[] rxKey(int g) {
        while (rxKeys.size() <= g) {
            rxSecret = expand(rxSecret, "MetaRoCE AUTH v1 key update", 32);
            rxKeys.add(expand(rxSecret, "MetaRoCE AUTH v1 key", 16));
        }
        return rxKeys.get(g);
    }

    /** The tester of a case with {@code config auth=tag|encrypt} whose QP the target connected, or null. */
    static AuthTester forCase(String mode, int iutQpn, int testerPsn, int iutPsn) {
        if (mode == null || mode.equals("off")) {
            return null;
        }
        return new AuthTester(TesterConstants.AUTH_PSK, TesterConstants.AUTH_CID, iutQpn, testerPsn, iutPsn,
                mode.equals("encrypt"));
    }

    /** The tester after a CM exchange (AUTH-9): keys from the REQ it sent and the IUT's REP. */
    static AuthTester afterCm(long cid, int iutQpn, int testerPsn, int iutPsn, boolean encrypt) {
        return new AuthTester(TesterConstants.AUTH_PSK, cid, iutQpn, testerPsn, iutPsn, encrypt);
    }

    /** AUTH-3: HKDF-Extract of the PSK under the connection's 24-byte context. */
    private static byte[] prk(byte[] psk, long cid, int iutQpn, int testerPsn, int iutPsn) {
        byte[] salt = ByteBuffer.allocate(24).putLong(cid).putInt(TesterConstants.TESTER_QPN).putInt(iutQpn)
                .putInt(testerPsn).putInt(iutPsn).array();
        return hmac(salt, psk);
    }

    /** HKDF-Expand for at most one block (32 bytes): the first {@code length} bytes of HMAC(prk, info || 0x01). */
    private static byte[] expand(byte[] prk, String info, int length) {
        return Arrays.copyOf(hmac(prk, concat(info.getBytes(StandardCharsets.US_ASCII), new byte[] {1})), length);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            return m.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Seals {@code buf[0, end)} (headers of {@code headers} bytes, then the payload; room for the trailer after it)
     * sent on {@code path}: {@code how} is "on" (a correct seal), "badtag" (one tag bit flipped), "wrongkey" or
     * "flipphase" (sealed, then its KEY_PHASE bit flipped: a forged key update, AUTH-19); {@code seq} the auth
     * sequence number, or -1 for the path's next; {@code generation} the tester's key generation (AUTH-17: odd
     * ones set KEY_PHASE). Returns the length before the CRC.
     */
    int seal(byte[] buf, int headers, int end, int path, String how, long seq, int generation) {
        long n = seq >= 0 ? seq : nextSeq.getOrDefault(path, 0L);
        nextSeq.merge(path, n + 1, Math::max);
        int flags = ((buf[2] & 0xFF) << 8 | (buf[3] & 0xFF)) | FLAG_AUTH | (encrypt ? FLAG_ENCRYPTED : 0)
                | (generation % 2 == 1 ? FLAG_KEY_PHASE : 0);
        buf[2] = (byte) (flags >>> 8);
        buf[3] = (byte) flags;
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(how.equals("wrongkey") ? wrongKey : txKey(generation), "AES"),
                    new GCMParameterSpec(128, nonce(path, n)));
            byte[] sealed;
            if (encrypt) {
                c.updateAAD(buf, 0, headers);
                sealed = c.doFinal(buf, headers, end - headers);
                System.arraycopy(sealed, 0, buf, headers, sealed.length);
            } else {
                c.updateAAD(buf, 0, end);
                sealed = c.doFinal();
                System.arraycopy(sealed, 0, buf, end, 16);
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        if (how.equals("badtag")) {
            buf[end + 7] ^= 0x10;
        }
        if (how.equals("flipphase")) {
            buf[3] ^= FLAG_KEY_PHASE;
        }
        ByteBuffer.wrap(buf, end + 16, 8).putLong(n);
        return end + TRAILER;
    }

    /**
     * Opens a datagram the IUT sent ({@code dg}, CRC included; headers of {@code headers} bytes, payload ends at
     * {@code end}) in place: true when its tag verifies with the IUT's key of the generation its KEY_PHASE bit
     * names (the payload is then plaintext; {@link #lastOpenedGeneration} says which). A packet with the other
     * phase bit is tried with the IUT's next generation, which then becomes the tester's current one, and then
     * with the previous (AUTH-19, simplified: the tester does not keep per-path bounds).
     */
    boolean open(byte[] dg, int headers, int end, int path) {
        if (dg.length != end + TRAILER + 4) {
            return false;
        }
        int phase = (dg[3] & FLAG_KEY_PHASE) != 0 ? 1 : 0;
        int[] order = phase == rxGeneration % 2 ? new int[] {rxGeneration}
                : rxGeneration == 0 ? new int[] {1} : new int[] {rxGeneration + 1, rxGeneration - 1};
        for (int g : order) {
            if (openWith(rxKey(g), dg, headers, end, path)) {
                lastOpenedGeneration = g;
                rxGeneration = Math.max(rxGeneration, g);
                return true;
            }
        }
        return false;
    }

    private boolean openWith(byte[] key, byte[] dg, int headers, int end, int path) {
        long seq = ByteBuffer.wrap(dg, end + 16, 8).getLong();
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce(path, seq)));
            if (encrypt) {
                c.updateAAD(dg, 0, headers);
                byte[] plain = c.doFinal(dg, headers, end - headers + 16);
                System.arraycopy(plain, 0, dg, headers, plain.length);
            } else {
                c.updateAAD(dg, 0, end);
                c.doFinal(dg, end, 16);
            }
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** AUTH-11: the CM key of {@code psk}, HKDF-SHA256 written out (one block of HKDF-Expand). */
    private static byte[] cmKey(byte[] psk) {
        byte[] prk = hmac("MetaRoCE CM v1".getBytes(StandardCharsets.US_ASCII), psk);
        return hmac(prk, concat("MetaRoCE CM MAC".getBytes(StandardCharsets.US_ASCII), new byte[] {1}));
    }

    private static final byte[] CM_KEY = cmKey(TesterConstants.AUTH_PSK);
    private static final byte[] CM_WRONG_KEY = cmKey("not the pre-shared key of this trust domain"
            .getBytes(StandardCharsets.US_ASCII));

    /**
     * AUTH-11, AUTH-12: seals the CM message in {@code buf[0, end)} (header and CM extension; room for the trailer
     * after it) with CM message counter {@code counter}; {@code how} as for {@link #seal}. Returns the length
     * before the CRC.
     */
    static int sealCm(byte[] buf, int end, String how, long counter) {
        buf[3] |= FLAG_AUTH;
        ByteBuffer.wrap(buf, end + 16, 8).putLong(counter);
        byte[] tag = cmTag(how.equals("wrongkey") ? CM_WRONG_KEY : CM_KEY, buf, end, counter);
        System.arraycopy(tag, 0, buf, end, 16);
        if (how.equals("badtag")) {
            buf[end + 5] ^= 0x01;
        }
        return end + TRAILER;
    }

    /**
     * AUTH-13 from the tester's side: 1 when the CM datagram {@code dg} (CRC included, WIRE-8 passed, CM extension
     * and planes ending at {@code end}) carries a trailer whose tag verifies under the tester's CM key, 0 when its
     * trailer does not verify, -1 when it has none.
     */
    static int openCm(byte[] dg, int end) {
        int flags = (dg[2] & 0xFF) << 8 | (dg[3] & 0xFF);
        if ((flags & FLAG_AUTH) == 0 || dg.length != end + TRAILER + 4) {
            return -1;
        }
        long counter = ByteBuffer.wrap(dg, end + 16, 8).getLong();
        return MessageDigest.isEqual(Arrays.copyOf(cmTag(CM_KEY, dg, end, counter), 16),
                Arrays.copyOfRange(dg, end, end + 16)) ? 1 : 0;
    }

    private static byte[] cmTag(byte[] key, byte[] msg, int end, long counter) {
        byte[] in = Arrays.copyOf(msg, end + 8);
        ByteBuffer.wrap(in, end, 8).putLong(counter);
        return Arrays.copyOf(hmac(key, in), 16);
    }

    private static byte[] nonce(int path, long seq) {
        return ByteBuffer.allocate(12).putInt(path).putLong(seq).array();
    }
}
