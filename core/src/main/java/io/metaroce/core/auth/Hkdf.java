package io.metaroce.core.auth;

import java.security.GeneralSecurityException;
import java.util.Arrays;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HKDF with HMAC-SHA256 (RFC 5869), from the JDK's own {@code HmacSHA256}. Used once per connection. */
public final class Hkdf {
    private static final int HASH_LENGTH = 32;

    private Hkdf() {
    }

    /** HKDF-Extract: the pseudo-random key of {@code ikm} under {@code salt} (32 bytes). */
    public static byte[] extract(byte[] salt, byte[] ikm) {
        return hmac(salt.length == 0 ? new byte[HASH_LENGTH] : salt, ikm);
    }

    /** HKDF-Expand: {@code length} bytes (at most 255 x 32) of output keying material from {@code prk}. */
    public static byte[] expand(byte[] prk, byte[] info, int length) {
        if (length < 0 || length > 255 * HASH_LENGTH) {
            throw new IllegalArgumentException("HKDF output of " + length + " bytes");
        }
        byte[] out = new byte[length];
        byte[] t = new byte[0];
        int done = 0;
        for (int i = 1; done < length; i++) {
            byte[] input = new byte[t.length + info.length + 1];
            System.arraycopy(t, 0, input, 0, t.length);
            System.arraycopy(info, 0, input, t.length, info.length);
            input[input.length - 1] = (byte) i;
            t = hmac(prk, input);
            int n = Math.min(HASH_LENGTH, length - done);
            System.arraycopy(t, 0, out, done, n);
            done += n;
        }
        Arrays.fill(t, (byte) 0);
        return out;
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no HmacSHA256", e);
        }
    }
}
