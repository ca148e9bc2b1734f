package io.metaroce.conformance.script;

import java.util.List;
import java.util.Map;

/**
 * One parsed conformance case: its identity, the spec IDs it checks, its set-up and its timed steps.
 *
 * @param name     unique case name
 * @param file     the script file it came from (resource path)
 * @param section  the directory of the file under {@code cases/} (e.g. {@code sack})
 * @param title    one-line description
 * @param ids      spec behaviour IDs checked (e.g. {@code SACK-3})
 * @param level    MUST or SHOULD (SHOULD cases run only with {@code --strict})
 * @param requires target capabilities the case needs (e.g. {@code path-stats}); a target lacking one skips it
 * @param config   engine knobs (EngineConfig names, time values in ns)
 * @param iutPsn   initial PSN of the implementation under test (absolute)
 * @param testerPsn initial PSN of the tester (absolute)
 * @param qpState  state the IUT's QP is brought to before the steps (RESET, INIT, RTR, RTS)
 * @param regions  memory regions registered at the IUT before the steps
 * @param steps    the timed steps
 * @param line     line of the {@code case} directive
 * @param rerun    run the case twice and require bit-identical output (VERBS-18)
 */
public record Script(String name, String file, String section, String title, List<String> ids, String level,
                     List<String> requires, Map<String, String> config, long iutPsn, long testerPsn,
                     String qpState, List<Region> regions, List<Step> steps, int line,
                     boolean rerun) {

    /** A memory region of the set-up: {@code mr NAME size=N access=FLAGS [pd=other]}. */
    public record Region(String name, int size, int access, boolean otherPd) {
    }

    /** Whether this is a SHOULD-level case. */
    public boolean isShould() {
        return "SHOULD".equals(level);
    }
}
