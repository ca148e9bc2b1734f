package io.metaroce.core.auth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The two AES-128-GCM keys of one authenticated connection (spec AUTH-3): one for the packets this side sends,
 * one for those it receives, and whether payloads are encrypted (AUTH-5). Derived by both sides from the
 * pre-shared key and the values their connection managers exchanged; never sent.
 */
public final class AuthKeys {
    /** AES key length in bytes (AES-128). */
    public static final int KEY_LENGTH = 16;
    /** Shortest pre-shared key accepted, in bytes. */
    public static final int MIN_PSK_LENGTH = 16;
    /** Longest pre-shared key accepted, in bytes. */
    public static final int MAX_PSK_LENGTH = 64;
    /** HKDF info of the key for packets from the initiator to the responder. */
    static final byte[] INFO_I2R = "MetaRoCE AUTH v1 initiator to responder".getBytes(StandardCharsets.US_ASCII);
    /** HKDF info of the key for packets from the responder to the initiator. */
    static final byte[] INFO_R2I = "MetaRoCE AUTH v1 responder to initiator".getBytes(StandardCharsets.US_ASCII);
    /** HKDF info of the update secret of the initiator-to-responder direction (AUTH-17). */
    static final byte[] INFO_I2R_UPDATE = "MetaRoCE AUTH v1 initiator to responder update"
            .getBytes(StandardCharsets.US_ASCII);
    /** HKDF info of the update secret of the responder-to-initiator direction (AUTH-17). */
    static final byte[] INFO_R2I_UPDATE = "MetaRoCE AUTH v1 responder to initiator update"
            .getBytes(StandardCharsets.US_ASCII);

    private final byte[] txKey;
    private final byte[] rxKey;
    private final boolean encrypt;
    /** AUTH-17: the update secrets of both directions ({@code S_0}), or null (keys given without them). */
    private final byte[] txSecret;
    private final byte[] rxSecret;

    /**
     * Keys given directly (16 bytes each; copied), without update secrets: such a connection never updates its
     * keys (AUTH-18) and cannot follow a peer that does (AUTH-19: its packets fail the tag).
     */
    public AuthKeys(byte[] txKey, byte[] rxKey, boolean encrypt) {
        this(txKey, rxKey, null, null, encrypt);
    }

    private AuthKeys(byte[] txKey, byte[] rxKey, byte[] txSecret, byte[] rxSecret, boolean encrypt) {
        if (txKey.length != KEY_LENGTH || rxKey.length != KEY_LENGTH) {
            throw new IllegalArgumentException("AES-128-GCM keys are " + KEY_LENGTH + " bytes");
        }
        this.txKey = txKey.clone();
        this.rxKey = rxKey.clone();
        this.txSecret = txSecret == null ? null : txSecret.clone();
        this.rxSecret = rxSecret == null ? null : rxSecret.clone();
        this.encrypt = encrypt;
    }

    /**
     * AUTH-3: the keys of one side of a connection. {@code psk} is the pre-shared key (16..64 bytes); the other
     * values are those of the connection's CM_REQ and CM_REP: its connection id, the initiator's and the
     * responder's QP numbers and initial PSNs. {@code initiator} says which side this is.
     */
    public static AuthKeys derive(byte[] psk, long connectionId, int initiatorQpn, int responderQpn,
                                  int initiatorPsn, int responderPsn, boolean initiator, boolean encrypt) {
        checkPsk(psk);
        byte[] prk = Hkdf.extract(context(connectionId, initiatorQpn, responderQpn, initiatorPsn, responderPsn),
                psk);
        byte[] i2r = Hkdf.expand(prk, INFO_I2R, KEY_LENGTH);
        byte[] r2i = Hkdf.expand(prk, INFO_R2I, KEY_LENGTH);
        byte[] si2r = Hkdf.expand(prk, INFO_I2R_UPDATE, KeyRatchet.SECRET_LENGTH);
        byte[] sr2i = Hkdf.expand(prk, INFO_R2I_UPDATE, KeyRatchet.SECRET_LENGTH);
        Arrays.fill(prk, (byte) 0);
        AuthKeys k = initiator ? new AuthKeys(i2r, r2i, si2r, sr2i, encrypt)
                : new AuthKeys(r2i, i2r, sr2i, si2r, encrypt);
        for (byte[] b : new byte[][] {i2r, r2i, si2r, sr2i}) {
            Arrays.fill(b, (byte) 0);
        }
        return k;
    }

    /** The 24-byte HKDF salt of AUTH-3: connection id, both QPNs, both initial PSNs, big-endian. */
    static byte[] context(long connectionId, int initiatorQpn, int responderQpn, int initiatorPsn,
                          int responderPsn) {
        return ByteBuffer.allocate(24).putLong(connectionId).putInt(initiatorQpn).putInt(responderQpn)
                .putInt(initiatorPsn).putInt(responderPsn).array();
    }

    /** Throws a one-sentence {@link IllegalArgumentException} unless {@code psk} is 16..64 bytes. */
    public static void checkPsk(byte[] psk) {
        if (psk == null || psk.length < MIN_PSK_LENGTH || psk.length > MAX_PSK_LENGTH) {
            throw new IllegalArgumentException("the pre-shared key must be " + MIN_PSK_LENGTH + ".."
                    + MAX_PSK_LENGTH + " bytes, got " + (psk == null ? "none" : psk.length));
        }
    }

    /** A copy of the key of the packets this side sends. */
    public byte[] txKey() {
        return txKey.clone();
    }

    /** A copy of the key of the packets this side receives. */
    public byte[] rxKey() {
        return rxKey.clone();
    }

    /** AUTH-17: a copy of the update secret {@code S_0} of the packets this side sends, or null. */
    public byte[] txUpdateSecret() {
        return txSecret == null ? null : txSecret.clone();
    }

    /** AUTH-17: a copy of the update secret {@code S_0} of the packets this side receives, or null. */
    public byte[] rxUpdateSecret() {
        return rxSecret == null ? null : rxSecret.clone();
    }

    /** Whether payloads are encrypted (AUTH-5); otherwise they are authenticated only. */
    public boolean encrypt() {
        return encrypt;
    }

    /** Never shows the keys. */
    @Override
    public String toString() {
        return "AuthKeys[AES-128-GCM, " + (encrypt ? "encrypted" : "authenticated") + " payload]";
    }
}
