package io.metaroce.sim.experiment;

/**
 * The {@code index}-th of {@code count} slices of a sweep (both 1-based, as in {@code --shard 2/4}). Points are
 * dealt round-robin (point {@code i}, 0-based, belongs to shard {@code i % count + 1}), so every shard gets a mix
 * of cheap and expensive points when the sweep's inner axis orders them by cost.
 *
 * @param index 1 to {@code count}
 * @param count number of shards, at least 1
 */
public record Shard(int index, int count) {
    /** The whole sweep. */
    public static final Shard ALL = new Shard(1, 1);

    /** Checks the bounds. */
    public Shard {
        if (count < 1 || index < 1 || index > count) {
            throw new IllegalArgumentException("a shard is I/N with 1 <= I <= N, got " + index + "/" + count);
        }
    }

    /**
     * Parses {@code I/N}.
     *
     * @throws IllegalArgumentException with a one-line message on anything else
     */
    public static Shard parse(String s) {
        String[] parts = s.trim().split("/", -1);
        if (parts.length == 2) {
            try {
                return new Shard(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
            } catch (NumberFormatException e) {
                // fall through to the message below
            }
        }
        throw new IllegalArgumentException("--shard expects I/N (e.g. 2/4, 1 <= I <= N), got '" + s + "'");
    }

    /** True when point {@code pointIndex} (0-based) belongs to this shard. */
    public boolean contains(int pointIndex) {
        return pointIndex % count == index - 1;
    }

    @Override
    public String toString() {
        return index + "/" + count;
    }
}
