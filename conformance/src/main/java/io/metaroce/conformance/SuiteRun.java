package io.metaroce.conformance;

import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.target.Target;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One run of a selection of cases against one target, with its results.
 *
 * @param target      the target's description
 * @param strict      whether SHOULD cases were included
 * @param startedAt   when the run started (ISO-8601, for reports only)
 * @param results     one result per case, in run order
 * @param millis      wall-clock duration of the run
 */
public record SuiteRun(String target, boolean strict, String startedAt, List<CaseResult> results, long millis) {

    /** Runs {@code cases} on {@code target}, calling {@code live} after each case. */
    public static SuiteRun run(List<Script> cases, Target target, Runner runner, boolean strict,
                               Consumer<CaseResult> live) {
        String started = java.time.Instant.now().toString();
        long t0 = System.nanoTime();
        List<CaseResult> results = new ArrayList<>();
        for (Script s : cases) {
            CaseResult r = runner.run(s, target);
            results.add(r);
            live.accept(r);
        }
        return new SuiteRun(target.description(), strict, started, List.copyOf(results),
                (System.nanoTime() - t0) / 1_000_000);
    }

    /** Results with this status. */
    public long count(CaseResult.Status status) {
        return results.stream().filter(r -> r.status() == status).count();
    }

    /** True when no selected case failed or errored (skipped cases are reported, not failures). */
    public boolean passed() {
        return results.stream().noneMatch(CaseResult::failed);
    }

    /** One line: counts and verdict. */
    public String summary() {
        return String.format("%d cases: %d passed, %d failed, %d errors, %d skipped in %.1f s against %s -> %s",
                results.size(), count(CaseResult.Status.PASS), count(CaseResult.Status.FAIL),
                count(CaseResult.Status.ERROR), count(CaseResult.Status.SKIP), millis / 1000.0, target,
                passed() ? "CONFORMS" : "DOES NOT CONFORM");
    }
}
