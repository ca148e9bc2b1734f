package io.metaroce.cli.options;

import io.metaroce.core.unit.Quantity;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

import java.net.InetSocketAddress;
import java.util.Locale;

/**
 * picocli type converters for the one unit grammar of {@link Quantity}: every command's sizes, rates, times
 * and fractions go through these, so {@code --size 4KiB}, {@code --rate 10gbit} and {@code --duration 2ms}
 * mean the same everywhere. A bad value becomes picocli's one-line "Invalid value for option" error.
 */
public final class Converters {
    private Converters() {
    }

    /** Bytes: {@code 4KiB}, {@code 64MB} (10^6), {@code 1MiB}, {@code 1500}. */
    public static final class Size implements ITypeConverter<Long> {
        /** For picocli. */
        public Size() {
        }

        @Override
        public Long convert(String value) {
            return wrap(() -> Quantity.bytes(value));
        }
    }

    /** Bytes that must fit an int (message sizes, MTUs). */
    public static final class IntSize implements ITypeConverter<Integer> {
        /** For picocli. */
        public IntSize() {
        }

        @Override
        public Integer convert(String value) {
            long v = wrap(() -> Quantity.bytes(value));
            if (v > Integer.MAX_VALUE) {
                throw new CommandLine.TypeConversionException("'" + value + "' is more than " + Integer.MAX_VALUE
                        + " bytes");
            }
            return (int) v;
        }
    }

    /** Bits per second: {@code 100Gbps}, {@code 10gbit}, {@code 400G}; {@code 0}, {@code off} or {@code unlimited} = 0. */
    public static final class Rate implements ITypeConverter<Long> {
        /** For picocli. */
        public Rate() {
        }

        @Override
        public Long convert(String value) {
            String v = value.strip().toLowerCase(Locale.ROOT);
            if (v.equals("off") || v.equals("unlimited") || v.equals("none")) {
                return 0L;
            }
            return wrap(() -> Quantity.bitsPerSecond(value));
        }
    }

    /** Seconds: {@code 5} (seconds), {@code 5s}, {@code 2ms}, {@code 500us}. */
    public static final class Seconds implements ITypeConverter<Double> {
        /** For picocli. */
        public Seconds() {
        }

        @Override
        public Double convert(String value) {
            return wrap(() -> Quantity.seconds(value));
        }
    }

    /** Microseconds (rounded): {@code 20000} (us), {@code 20ms}, {@code 500us}. */
    public static final class Micros implements ITypeConverter<Long> {
        /** For picocli. */
        public Micros() {
        }

        @Override
        public Long convert(String value) {
            return wrap(() -> (Quantity.picoseconds(value, Quantity.PS_PER_US) + Quantity.PS_PER_US / 2)
                    / Quantity.PS_PER_US);
        }
    }

    /** A fraction in [0, 1]: {@code 0.01} or {@code 1%}. */
    public static final class Fraction implements ITypeConverter<Double> {
        /** For picocli. */
        public Fraction() {
        }

        @Override
        public Double convert(String value) {
            return wrap(() -> Quantity.fraction(value));
        }
    }

    /** {@code HOST:PORT}, {@code [IPv6]:PORT} (see {@link HostPort}). */
    public static final class Address implements ITypeConverter<InetSocketAddress> {
        /** For picocli. */
        public Address() {
        }

        @Override
        public InetSocketAddress convert(String value) {
            return wrap(() -> HostPort.parse(value));
        }
    }

    private interface Parse<T> {
        T get();
    }

    private static <T> T wrap(Parse<T> p) {
        try {
            return p.get();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
