package io.metaroce.net.cm;

import io.metaroce.core.auth.CmAuth;
import io.metaroce.core.auth.Hkdf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A per-source token bucket in front of a keyed connection manager's MAC check (AUTH-13) and refusal (AUTH-14):
 * every CM datagram from a source takes one token; a source without one is dropped and counted
 * ({@code CM_DROP_RATE_LIMITED}) before any MAC is computed or any answer sent. Each source refills at
 * {@code ratePerSecond} up to {@code burst} tokens.
 *
 * <p>Memory is fixed: {@link #BUCKETS} buckets, chosen by a hash of the source keyed with a value derived from the
 * pre-shared key (an outsider cannot aim at a given source's bucket). Sources that hash alike share a bucket;
 * nothing is allocated per datagram and no source is ever remembered beyond its bucket. A flood from one address
 * thus costs at most {@code ratePerSecond} MAC checks per second; a flood from many spoofed addresses is bounded by
 * {@code BUCKETS x ratePerSecond} and starves the sources that share its buckets (a per-source limit cannot tell a
 * spoofed address from a real one). Time is the caller's (virtual in tests).
 */
public final class CmRateLimit {
    /** Number of buckets (a power of two). */
    public static final int BUCKETS = 1024;
    private static final long NS_PER_SECOND = 1_000_000_000L;

    /** Credit of each bucket in ns of refill time; a datagram costs {@link #costNs}. */
    private final long[] credit = new long[BUCKETS];
    private final long[] lastNs = new long[BUCKETS];
    private final boolean[] used = new boolean[BUCKETS];
    private final long costNs;
    private final long capNs;
    private final long key;

    /**
     * A limiter of {@code ratePerSecond} datagrams per second and source (1 .. 10^9) with bursts of {@code burst}
     * (>= 1), its hash keyed with {@code key}.
     */
    public CmRateLimit(long ratePerSecond, int burst, long key) {
        if (ratePerSecond < 1 || ratePerSecond > NS_PER_SECOND || burst < 1) {
            throw new IllegalArgumentException("rate limit " + ratePerSecond + "/s, burst " + burst);
        }
        this.costNs = NS_PER_SECOND / ratePerSecond;
        this.capNs = costNs * burst;
        this.key = key;
    }

    /** A limiter for a device with pre-shared key {@code psk}, or null when {@code settings} turn limiting off. */
    static CmRateLimit forKey(CmSettings settings, byte[] psk) {
        if (settings.rateLimitPerSecond() == 0) {
            return null;
        }
        byte[] k = Hkdf.expand(CmAuth.deriveKey(psk), "MetaRoCE CM rate limit".getBytes(StandardCharsets.US_ASCII), 8);
        return new CmRateLimit(settings.rateLimitPerSecond(), settings.rateLimitBurst(), ByteBuffer.wrap(k).getLong());
    }

    /** Whether a datagram from {@code source} at {@code nowNs} may go on; takes its token if so. */
    public boolean admit(long nowNs, long source) {
        int i = bucket(source);
        long c;
        if (!used[i]) {
            used[i] = true;
            c = capNs;
            lastNs[i] = nowNs;
        } else {
            long elapsed = nowNs - lastNs[i];
            c = elapsed <= 0 ? credit[i] : elapsed >= capNs ? capNs : Math.min(capNs, credit[i] + elapsed);
            if (elapsed > 0) {
                lastNs[i] = nowNs; // a clock that steps back earns nothing, now or later
            }
        }
        if (c < costNs) {
            credit[i] = c;
            return false;
        }
        credit[i] = c - costNs;
        return true;
    }

    private int bucket(long source) {
        long h = (source ^ key) * 0x9E3779B97F4A7C15L; // keyed multiplicative hash, then mixed (SplitMix64's finaliser)
        h ^= h >>> 31;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 29;
        return (int) h & (BUCKETS - 1);
    }
}
