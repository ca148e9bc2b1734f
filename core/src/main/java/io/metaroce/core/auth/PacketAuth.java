package io.metaroce.core.auth;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals and opens the packets of one authenticated connection (spec section 10): AES-128-GCM with the JDK's own
 * provider, a per-path 64-bit sequence number in the nonce, the AUTH trailer (16-byte tag, then the sequence
 * number) between the payload and the CRC, and a {@link ReplayWindow} per path. Keys move on while the
 * connection runs (AUTH-17 .. AUTH-19): the sender's through its {@link KeyRatchet} when the caller says so
 * ({@link #updateTxKey}), the receiver's through {@link RxKeys}, which picks the key for each packet from its
 * {@code KEY_PHASE} bit and sequence number. One instance per QP, used on the engine's thread only.
 *
 * <h2>Cost per packet</h2>
 * The two {@link Cipher} objects are made once per connection; each packet re-initialises one of them with its
 * nonce. The JDK's GCM refuses to encrypt twice with one key and nonce (its IV-reuse guard), so a {@code Cipher}
 * cannot stay initialised across packets, and the provider builds its per-nonce state (GHASH, counter and engine
 * objects, about 0.9 KB) on every {@code init}. It also copies all additional data into a buffer before hashing
 * it, which is why the payload-in-clear mode (the whole packet is additional data) allocates about a packet's
 * length more per packet than the encrypting mode (64 header bytes of additional data). Our own code allocates
 * nothing per packet: the nonce goes to the provider through one reused {@link NonceSpec} (the provider takes its
 * own copy), native segments are copied into a scratch array (the provider's direct-buffer path copies through
 * arrays it allocates, and its AVX-512 intrinsic works on arrays), and an encrypted payload is decrypted into a
 * second scratch array and copied back (the provider skips its combined intrinsic for in-place decryption, and
 * guards in-place decryption into a lower offset with a copy). The guard is kept, not worked around (a GCM of our
 * own over AES/ECB would avoid the provider's allocations but is new crypto code): it is the provider's own check
 * that a nonce is never reused. Figures: {@code bench/auth.sh} ({@code PacketAuthBench} with {@code -prof gc}).
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
    /** {@link #open} result: authentic and fresh, and the first packet under the peer's next key (AUTH-19). */
    public static final int UPDATED = 4;
    /** {@link #open} result: sealed under a key this receiver no longer keeps (AUTH-19); no key was tried. */
    public static final int RETIRED = 5;

    private final Cipher sealer;
    private final Cipher opener;
    /** AUTH-17: the key packets are sealed with now, its phase bit, and how many it sealed. */
    private SecretKeySpec txKey;
    private int txPhase;
    private long sealedUnderKey;
    private final KeyRatchet txRatchet;
    /** AUTH-19: the peer's keys (previous, current, next) and the choice among them. */
    private final RxKeys rx;
    private final boolean encrypt;
    private final long[] txSeq;
    private final ReplayWindow window;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final BaseHeader base = new BaseHeader();
    /** The nonce of the packet being sealed or opened, handed to the provider without a spec per packet. */
    private final NonceSpec spec = new NonceSpec();
    /** Where native segments are sealed and opened (grows only for a longer packet than any before). */
    private byte[] scratch = new byte[2048];
    /** Where an encrypted payload is decrypted to before it is copied back (grows as {@link #scratch}). */
    private byte[] plain = new byte[2048];

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
        txRatchet = new KeyRatchet(keys.txUpdateSecret());
        rx = new RxKeys(keys.rxKey(), keys.rxUpdateSecret(), paths);
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

    /** AUTH-18: whether this sender can move to a next key (its keys came with their update secret). */
    public boolean canUpdateKey() {
        return txRatchet.canStep();
    }

    /** AUTH-18: packets sealed under the current key so far. */
    public long sealedUnderKey() {
        return sealedUnderKey;
    }

    /** AUTH-17: the generation of the key packets are sealed with now (the number of key updates made). */
    public long txKeyGeneration() {
        return txRatchet.generation();
    }

    /** AUTH-19: the generation of the peer's key this receiver opens with now (the updates it followed). */
    public long rxKeyGeneration() {
        return rx.generation();
    }

    /**
     * AUTH-18: seals every later packet under the next generation of the key, with the {@code KEY_PHASE} bit
     * flipped. The caller decides when (after enough packets, once the peer acknowledged one under the current
     * key); derives one key (two HMAC-SHA256) and allocates its spec.
     */
    public void updateTxKey() {
        if (!txRatchet.canStep()) {
            throw new IllegalStateException("these keys came without an update secret (AUTH-17)");
        }
        txKey = txRatchet.step();
        txPhase ^= BaseHeader.FLAG_KEY_PHASE;
        sealedUnderKey = 0;
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
        base.flags(base.flags() | flags() | txPhase);
        sealedUnderKey++;
        int headers = BaseHeader.LENGTH + Opcode.extensionLength(base.opcode());
        long seq = txSeq[path]++;
        byte[] a = array(out, length + TAG_LENGTH);
        int o = arrayOffset(out);
        try {
            sealer.init(Cipher.ENCRYPT_MODE, txKey, spec.nonce(path, seq));
            if (encrypt) {
                sealer.updateAAD(a, o, headers);
                sealer.doFinal(a, o + headers, length - headers, a, o + headers); // in place, tag after it
            } else {
                sealer.updateAAD(a, o, length);
                sealer.doFinal(a, o + length); // no plaintext: the tag only (GMAC)
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM seal failed", e);
        }
        copyBack(a, out, headers, length + TAG_LENGTH);
        out.set(U64, length + TAG_LENGTH, seq);
        return length + TRAILER_LENGTH;
    }

    /**
     * Opens the datagram {@code seg[0, length)} (CRC included, already checked by {@link Packet#check}) that
     * arrived on path {@code path}: returns {@link #OK} (or {@link #UPDATED}: authentic, and the peer's first
     * packet under its next key) and, if the connection encrypts, leaves the plaintext payload in place; or the
     * reason to drop it. The replay window and the keys move only for an authentic packet (AUTH-7, AUTH-19).
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
        int choice = rx.select(flags & BaseHeader.FLAG_KEY_PHASE, path, seq, window.highest(path)); // AUTH-19
        if (choice == RxKeys.RETIRED) {
            return RETIRED;
        }
        SecretKeySpec key = choice == RxKeys.NONE ? null
                : opened(rx.first(), seg, path, seq, headers, end) ? rx.first()
                : choice == RxKeys.TWO && opened(rx.second(), seg, path, seq, headers, end) ? rx.second() : null;
        if (key == null) {
            return BAD_TAG;
        }
        if (encrypt) {
            MemorySegment.copy(plain, 0, seg, ValueLayout.JAVA_BYTE, headers, end - headers);
        }
        boolean rotated = rx.verified(key, path, seq, window);
        window.accept(path, seq);
        return rotated ? UPDATED : OK;
    }

    /**
     * Whether the tag of {@code seg} (headers of {@code headers} bytes, payload up to {@code end}) verifies under
     * {@code key}; an encrypted payload is then decrypted into {@link #plain}. The datagram itself is left as it
     * was either way, so another key can be tried after a failure.
     */
    private boolean opened(SecretKeySpec key, MemorySegment seg, int path, long seq, int headers, int end) {
        byte[] a = array(seg, end + TAG_LENGTH);
        int o = arrayOffset(seg);
        try {
            opener.init(Cipher.DECRYPT_MODE, key, spec.nonce(path, seq));
            if (encrypt) {
                if (plain.length < end - headers) {
                    plain = new byte[Math.max(end - headers, 2 * plain.length)]; // only a longer packet than before
                }
                opener.updateAAD(a, o, headers);
                // out of place: the provider's combined AES-GCM intrinsic is skipped for in-place decryption
                opener.doFinal(a, o + headers, end + TAG_LENGTH - headers, plain, 0);
            } else {
                opener.updateAAD(a, o, end);
                opener.doFinal(a, o + end, TAG_LENGTH, a, o + end);
            }
            return true;
        } catch (AEADBadTagException e) {
            return false;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM open failed", e);
        }
    }

    /**
     * The bytes {@code seg[0, length)} as an array the cipher can work on in place: the segment's own array when it
     * is a whole-array heap segment (the JDK's GCM then runs its intrinsic on it directly), else a copy in this
     * authenticator's scratch array (a native segment: the JDK would copy direct buffers through arrays anyway).
     */
    private byte[] array(MemorySegment seg, int length) {
        if (!seg.isNative() && seg.heapBase().orElse(null) instanceof byte[] a && seg.address() + length <= a.length) {
            return a;
        }
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, 2 * scratch.length)]; // only a longer packet than any before
        }
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, 0, scratch, 0, length);
        return scratch;
    }

    private static int arrayOffset(MemorySegment seg) {
        return !seg.isNative() && seg.heapBase().orElse(null) instanceof byte[] ? (int) seg.address() : 0;
    }

    /** Copies {@code a[from, to)} back into {@code seg} when {@code a} is the scratch copy. */
    private void copyBack(byte[] a, MemorySegment seg, int from, int to) {
        if (a == scratch) {
            MemorySegment.copy(a, from, seg, ValueLayout.JAVA_BYTE, from, to - from);
        }
    }

    /**
     * A {@link GCMParameterSpec} whose nonce (AUTH-4: path id, then sequence number) is set per packet, so that a
     * packet costs no spec object and no copy of its nonce in our code: the provider takes its own copy through
     * {@link #getIV()} on each {@code init} (which it needs for its IV-reuse guard), and reads nothing else later.
     */
    private static final class NonceSpec extends GCMParameterSpec {
        private final byte[] nonce = new byte[NONCE_LENGTH];

        NonceSpec() {
            super(TAG_LENGTH * 8, new byte[NONCE_LENGTH]);
        }

        NonceSpec nonce(int path, long seq) {
            nonce[0] = (byte) (path >>> 24);
            nonce[1] = (byte) (path >>> 16);
            nonce[2] = (byte) (path >>> 8);
            nonce[3] = (byte) path;
            for (int i = 0; i < 8; i++) {
                nonce[4 + i] = (byte) (seq >>> (56 - 8 * i));
            }
            return this;
        }

        @Override
        public byte[] getIV() {
            return nonce.clone();
        }
    }

    /** Name of an {@link #open} result. */
    public static String resultName(int r) {
        return switch (r) {
            case OK -> "OK";
            case MISSING -> "MISSING";
            case BAD_TAG -> "BAD_TAG";
            case REPLAY -> "REPLAY";
            case UPDATED -> "UPDATED";
            case RETIRED -> "RETIRED";
            default -> "UNKNOWN(" + r + ")";
        };
    }
}
