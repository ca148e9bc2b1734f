package io.metaroce.sim.workload;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Host lists written as numbers and inclusive ranges, {@code "8..11,16..19,40"}, in the order written. */
public final class HostRanges {
    private HostRanges() {
    }

    /**
     * The hosts of {@code text} (each once, in the order written), every one in {@code 0..hosts-1}; an empty or
     * malformed list, or a host out of range, is an IllegalArgumentException naming {@code key}.
     */
    public static int[] parse(String key, String text, int hosts) {
        Set<Integer> out = new LinkedHashSet<>();
        for (String part : text.split(",")) {
            String t = part.trim();
            if (t.isEmpty()) {
                continue;
            }
            int dots = t.indexOf("..");
            int lo;
            int hi;
            try {
                lo = Integer.parseInt((dots < 0 ? t : t.substring(0, dots)).trim());
                hi = dots < 0 ? lo : Integer.parseInt(t.substring(dots + 2).trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + ": '" + t + "' is not a host or a range a..b");
            }
            if (lo < 0 || hi >= hosts || lo > hi) {
                throw new IllegalArgumentException(key + ": '" + t + "' outside hosts 0.." + (hosts - 1));
            }
            for (int h = lo; h <= hi; h++) {
                out.add(h);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(key + ": no host in '" + text + "'");
        }
        List<Integer> l = new ArrayList<>(out);
        int[] a = new int[l.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = l.get(i);
        }
        return a;
    }
}
