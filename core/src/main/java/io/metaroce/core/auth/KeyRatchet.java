package io.metaroce.core.auth;

import java.nio.charset.StandardCharsets;

import javax.crypto.spec.SecretKeySpec;

/**
 * AUTH-17: the key schedule of one direction of an authenticated connection. Each direction keeps a 32-byte
 * <em>update secret</em> {@code S_n} apart from its AES key: {@code S_0} comes from the connection's PRK (AUTH-3),
 * {@code S_{n+1} = HKDF-Expand(S_n, "MetaRoCE AUTH v1 key update", 32)} and the key of generation {@code n >= 1} is
 * {@code K_n = HKDF-Expand(S_n, "MetaRoCE AUTH v1 key", 16)} (generation 0 keeps AUTH-3's key). A leaked AES key
 * therefore reveals no other key, and a leaked secret no earlier one. Used off the per-packet path: one step
 * (two HMAC-SHA256 computations) per key update.
 */
final class KeyRatchet {
    /** HKDF info of the next update secret. */
    static final byte[] INFO_UPDATE = "MetaRoCE AUTH v1 key update".getBytes(StandardCharsets.US_ASCII);
    /** HKDF info of a generation's AES key. */
    static final byte[] INFO_KEY = "MetaRoCE AUTH v1 key".getBytes(StandardCharsets.US_ASCII);
    /** Length of an update secret in bytes (one SHA-256 output). */
    static final int SECRET_LENGTH = 32;

    private byte[] secret;
    private long generation;

    /** A ratchet at generation 0 with update secret {@code s0} (copied), or one that cannot step if null. */
    KeyRatchet(byte[] s0) {
        secret = s0 == null ? null : s0.clone();
    }

    /** Whether {@link #step} can derive a next key (the keys came with their update secret). */
    boolean canStep() {
        return secret != null;
    }

    /** The generation of the secret held now. */
    long generation() {
        return generation;
    }

    /** Moves to the next generation and returns its AES key. */
    SecretKeySpec step() {
        byte[] next = Hkdf.expand(secret, INFO_UPDATE, SECRET_LENGTH);
        java.util.Arrays.fill(secret, (byte) 0);
        secret = next;
        generation++;
        byte[] k = Hkdf.expand(secret, INFO_KEY, AuthKeys.KEY_LENGTH);
        SecretKeySpec spec = new SecretKeySpec(k, "AES");
        java.util.Arrays.fill(k, (byte) 0);
        return spec;
    }
}
