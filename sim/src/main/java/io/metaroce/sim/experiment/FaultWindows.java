package io.metaroce.sim.experiment;

import io.metaroce.sim.run.FaultSpec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The time windows a point's scripted faults cover, for shading plots: a plane or link from its {@code -down}
 * to its {@code -up} (or to the end of the run), a link (or every link) from a {@code link-loss} with loss above
 * 0 to the one that sets it back to 0.
 */
public final class FaultWindows {
    /**
     * One window.
     *
     * @param fromPs start, ps
     * @param toPs   end, ps ({@link Long#MAX_VALUE}: until the end of the run)
     * @param label  what is wrong in it, e.g. {@code plane 1 down}
     */
    public record Window(long fromPs, long toPs, String label) {
    }

    private FaultWindows() {
    }

    /** The windows of {@code faults} (in any order), sorted by start. */
    public static List<Window> of(List<FaultSpec> faults) {
        List<FaultSpec> sorted = new ArrayList<>(faults);
        sorted.sort((a, b) -> Long.compare(a.atPs, b.atPs));
        Map<String, long[]> open = new LinkedHashMap<>(); // label -> {start}
        List<Window> out = new ArrayList<>();
        for (FaultSpec f : sorted) {
            switch (f.kind) {
                case "plane-down" -> open.putIfAbsent("plane " + f.plane + " down", new long[] {f.atPs});
                case "plane-up" -> close(open, out, "plane " + f.plane + " down", f.atPs);
                case "link-down" -> open.putIfAbsent("link " + f.link + " down", new long[] {f.atPs});
                case "link-up" -> close(open, out, "link " + f.link + " down", f.atPs);
                case "link-loss" -> {
                    String where = f.link.isEmpty() ? "every link" : f.link;
                    open.keySet().removeIf(k -> {
                        boolean same = k.startsWith("loss ") && k.endsWith(" on " + where);
                        if (same) {
                            out.add(new Window(open.get(k)[0], f.atPs, k));
                        }
                        return same;
                    });
                    if (f.loss > 0) {
                        open.put(String.format(Locale.ROOT, "loss %s on %s", Csv.brief(f.loss), where),
                                new long[] {f.atPs});
                    }
                }
                default -> { }
            }
        }
        open.forEach((label, start) -> out.add(new Window(start[0], Long.MAX_VALUE, label)));
        out.sort((a, b) -> Long.compare(a.fromPs(), b.fromPs()));
        return out;
    }

    private static void close(Map<String, long[]> open, List<Window> out, String label, long atPs) {
        long[] start = open.remove(label);
        if (start != null) {
            out.add(new Window(start[0], atPs, label));
        }
    }
}
