package io.metaroce.core.auth;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals and opens the packets of one authenticated connection (spec section 10): AES-128-GCM with the JDK's own
 * provider, a per-path 64-bit sequence number in the nonce, the AUTH trailer (16-byte tag, then the sequence
 * number) between the payload and the CRC, and a {@link ReplayWindow} per path. One instance per QP, used on
 * the engine's thread only.
 *
 * <h2>Cost per packet</h2>
 * The two {@link Cipher} objects are made once per connection; each packet re-initialises one of them with its
 * nonce. The JDK's GCM refuses to encrypt twice with one key and nonce (its IV-reuse guard), so a {@code Cipher}
 * cannot be left initialised: every packet needs {@code init} with a new {@link GCMParameterSpec}. That spec,
 * and the provider's per-{@code init} state, are the only objects allocated per packet; they are small and die
 * young (figures in the README, from {@code AuthBench} with {@code -prof gc}). The guard is kept: it is the
 * provider's own check that this class never reuses a nonce.
 */
public final class PacketAuth {
    /** Length of the GCM tag in bytes. */
    public static final int TAG_LENGTH = 16;
    /** Length of the auth sequence number in bytes. */
    public static final int SEQ_LENGTH = 8;
    /** The AUTH trailer between payload and CRC: tag and sequence number (AUTH-2). */
    public static final int TRAILER_LENGTH = TAG_LENGTH + SEQ_LENGTH;
    /** Length of the GCM nonce: path id (u32) and sequence number (u64) (AUTH-4). */
    public static final int NONCE_LENGTH = 12;

    /** {@link #open} result: authentic and fresh. */
    public static final int OK = 0;
    /** {@link #open} result: no AUTH trailer, or its flags disagree with the connection's mode (AUTH-6). */
    public static final int MISSING = 1;
    /** {@link #open} result: the tag does not verify (forged, altered, truncated tag, wrong key) (AUTH-6). */
    public static final int BAD_TAG = 2;
    /** {@link #open} result: the sequence number was already accepted or is below the window (AUTH-7). */
    public static final int REPLAY = 3;

    private final Cipher sealer;
    private final Cipher opener;
    private final SecretKeySpec txKey;
    private final SecretKeySpec rxKey;
    private final boolean encrypt;
    private final long[] txSeq;
    private final ReplayWindow window;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final BaseHeader base = new BaseHeader();
    private final byte[] nonce = new byte[NONCE_LENGTH];
    private final ByteBuffer empty = ByteBuffer.allocate(0);
    private final SegmentBuffers views = new SegmentBuffers();

    /** An authenticator for a connection of {@code paths} paths with {@code keys}. */
    public PacketAuth(AuthKeys keys, int paths) {
        if (paths < 1 || paths > 65_536) {
            throw new IllegalArgumentException("paths: " + paths);
        }
        try {
            sealer = Cipher.getInstance("AES/GCM/NoPadding");
            opener = Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no AES/GCM/NoPadding", e);
        }
        txKey = new SecretKeySpec(keys.txKey(), "AES");
        rxKey = new SecretKeySpec(keys.rxKey(), "AES");
        encrypt = keys.encrypt();
        txSeq = new long[paths];
        window = new ReplayWindow(paths);
    }

    /** Whether payloads are encrypted (AUTH-5). */
    public boolean encrypts() {
        return encrypt;
    }

    /** The flag bits this connection's packets carry (AUTH-2): {@code FLAG_AUTH}, and {@code FLAG_ENCRYPTED}. */
    public int flags() {
        return BaseHeader.FLAG_AUTH | (encrypt ? BaseHeader.FLAG_ENCRYPTED : 0);
    }

    /** The sequence number the next packet on {@code path} will carry. */
    public long nextSequence(int path) {
        return txSeq[path];
    }

    /**
     * Seals the packet in {@code out[0, length)} (headers and payload, no CRC yet) sent on path {@code path}:
     * sets the AUTH flags, encrypts the payload in place if the connection encrypts, appends the tag and the
     * path's next sequence number, and returns the new length (still without CRC): {@code length + 24}.
     */
    public int seal(MemorySegment out, int length, int path) {
        base.wrap(out, 0);
        base.flags(base.flags() | flags());
        int headers = BaseHeader.LENGTH + Opcode.extensionLength(base.opcode());
        long seq = txSeq[path]++;
        ByteBuffer in = views.in(out);
        ByteBuffer to = views.out(out);
        try {
            sealer.init(Cipher.ENCRYPT_MODE, txKey, new GCMParameterSpec(TAG_LENGTH * 8, nonce(path, seq)));
            if (encrypt) {
                sealer.updateAAD(in.limit(headers).position(0));
                sealer.doFinal(in.limit(length).position(headers), to.limit(length + TAG_LENGTH).position(headers));
            } else {
                sealer.updateAAD(in.limit(length).position(0));
                sealer.doFinal(empty.clear(), to.limit(length + TAG_LENGTH).position(length));
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM seal failed", e);
        }
        out.set(U64, length + TAG_LENGTH, seq);
        return length + TRAILER_LENGTH;
    }

    /**
     * Opens the datagram {@code seg[0, length)} (CRC included, already checked by {@link Packet#check}) that
     * arrived on path {@code path}: returns {@link #OK} and, if the connection encrypts, leaves the plaintext
     * payload in place; or the reason to drop it. The replay window moves only for an authentic packet.
     */
    public int open(MemorySegment seg, int length, int path) {
        base.wrap(seg, 0);
        int flags = base.flags();
        int headers = BaseHeader.LENGTH + Opcode.extensionLength(base.opcode());
        int end = headers + base.payloadLength();
        if ((flags & (BaseHeader.FLAG_AUTH | BaseHeader.FLAG_ENCRYPTED)) != flags()
                || length != end + TRAILER_LENGTH + Packet.CRC_LENGTH) {
            return MISSING;
        }
        long seq = seg.get(U64, end + TAG_LENGTH);
        if (!window.fresh(path, seq)) {
            return REPLAY;
        }
        ByteBuffer in = views.in(seg);
        ByteBuffer to = views.out(seg);
        try {
            opener.init(Cipher.DECRYPT_MODE, rxKey, new GCMParameterSpec(TAG_LENGTH * 8, nonce(path, seq)));
            if (encrypt) {
                opener.updateAAD(in.limit(headers).position(0));
                opener.doFinal(in.limit(end + TAG_LENGTH).position(headers), to.limit(end).position(headers));
            } else {
                opener.updateAAD(in.limit(end).position(0));
                opener.doFinal(in.limit(end + TAG_LENGTH).position(end), to.limit(end).position(end));
            }
        } catch (AEADBadTagException e) {
            return BAD_TAG;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM open failed", e);
        }
        window.accept(path, seq);
        return OK;
    }

    /** Forgets the replay windows and restarts the sequence numbers (only with new keys: AUTH-4). */
    void clear() {
        window.clear();
        java.util.Arrays.fill(txSeq, 0);
    }

    private byte[] nonce(int path, long seq) {
        nonce[0] = (byte) (path >>> 24);
        nonce[1] = (byte) (path >>> 16);
        nonce[2] = (byte) (path >>> 8);
        nonce[3] = (byte) path;
        for (int i = 0; i < 8; i++) {
            nonce[4 + i] = (byte) (seq >>> (56 - 8 * i));
        }
        return nonce;
    }

    /** Name of an {@link #open} result. */
    public static String resultName(int r) {
        return switch (r) {
            case OK -> "OK";
            case MISSING -> "MISSING";
            case BAD_TAG -> "BAD_TAG";
            case REPLAY -> "REPLAY";
            default -> "UNKNOWN(" + r + ")";
        };
    }
}
