package io.metaroce.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.concurrent.TimeUnit;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The two AEADs the JDK provides, as the engine uses one (AUTH-4): one {@link Cipher} made once, re-initialised
 * per packet with a fresh 12-byte nonce (both ciphers refuse a repeated key and nonce when encrypting), then one
 * {@code payload}-byte packet sealed in place in a direct buffer (headers as additional data). One op = one
 * packet. Chooses between AES-128-GCM and ChaCha20-Poly1305 (the issue: ChaCha20 "if you measure it faster").
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
public class AeadBench {
    /** "AES/GCM/NoPadding" (16-byte key) or "ChaCha20-Poly1305" (32-byte key). */
    @Param({"AES/GCM/NoPadding", "ChaCha20-Poly1305"})
    public String algorithm;

    /** Payload bytes sealed per packet. */
    @Param({"4096"})
    public int payload;

    private Cipher cipher;
    private SecretKeySpec key;
    private ByteBuffer in;
    private ByteBuffer out;
    private final byte[] nonce = new byte[12];
    private long seq;

    @Setup
    public void setup() throws GeneralSecurityException {
        boolean gcm = algorithm.startsWith("AES");
        cipher = Cipher.getInstance(algorithm);
        key = new SecretKeySpec(new byte[gcm ? 16 : 32], gcm ? "AES" : "ChaCha20");
        ByteBuffer buf = ByteBuffer.allocateDirect(64 + payload + 16);
        in = buf.duplicate();
        out = buf.duplicate();
    }

    /** Seals one packet: 64 header bytes authenticated, {@code payload} bytes encrypted, a 16-byte tag. */
    @Benchmark
    public int seal() throws GeneralSecurityException {
        long s = seq++;
        for (int i = 0; i < 8; i++) {
            nonce[4 + i] = (byte) (s >>> (56 - 8 * i));
        }
        if (algorithm.startsWith("AES")) {
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, nonce));
        } else {
            cipher.init(Cipher.ENCRYPT_MODE, key, new IvParameterSpec(nonce));
        }
        cipher.updateAAD(in.limit(64).position(0));
        return cipher.doFinal(in.limit(64 + payload).position(64), out.limit(64 + payload + 16).position(64));
    }
}
