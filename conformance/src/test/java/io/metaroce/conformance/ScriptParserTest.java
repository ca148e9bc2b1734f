package io.metaroce.conformance;

import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.script.ScriptException;
import io.metaroce.conformance.script.ScriptParser;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The parser: a well-formed script, families, and line-numbered errors for bad scripts. */
class ScriptParserTest {
    private static final String HEAD = "case x\nids SACK-3\nlevel MUST\n";

    private static ScriptException error(String text) {
        return assertThrows(ScriptException.class, () -> ScriptParser.parse("t.mrt", "s", text));
    }

    @Test
    void parsesHeaderAndSteps() {
        List<Script> s = ScriptParser.parse("t.mrt", "sack", """
                # comment
                case sack-one
                ids SACK-3 ACK-3
                level SHOULD
                title A title with words
                config paths=2 ackDelay=50us ecnGain=0.5
                psn iut=0xFFFFFFF0 tester=7
                mr A size=8192 access=lw,rw
                qp RTR
                @0 send WRITE psn=3 va=A+16 rkey=A   # trailing comment
                   expect ACK cum=-1 sack=3 flags!~RETRANSMIT
                +5us check counter DROP_DUPLICATE=0..1
                """);
        assertEquals(1, s.size());
        Script c = s.get(0);
        assertEquals("sack-one", c.name());
        assertEquals(List.of("SACK-3", "ACK-3"), c.ids());
        assertTrue(c.isShould());
        assertEquals("A title with words", c.title());
        assertEquals("50000", c.config().get("ackDelay"));
        assertEquals("0.5", c.config().get("ecnGain"));
        assertEquals(0xFFFFFFF0L, c.iutPsn());
        assertEquals(7, c.testerPsn());
        assertEquals("RTR", c.qpState());
        assertEquals(3, c.steps().size());
        assertEquals(10, c.steps().get(0).line());
        assertEquals("@0", c.steps().get(0).time());
        assertEquals("!~", c.steps().get(1).arg("flags").op());
        assertEquals("+5us", c.steps().get(2).time());
    }

    @Test
    void familiesExpandWithArithmetic() {
        List<Script> s = ScriptParser.parse("t.mrt", "s", """
                case gap-{B}
                param B 1 64
                param W a b
                ids SACK-1
                level MUST
                @0 send WRITE psn={B*2+1}   # {W}
                """);
        assertEquals(List.of("gap-1", "gap-64"), s.stream().map(Script::name).toList());
        assertEquals("3", s.get(0).steps().get(0).arg("psn").value());
        assertEquals("129", s.get(1).steps().get(0).arg("psn").value());
    }

    @Test
    void errorsNameTheLine() {
        assertEquals(4, error(HEAD + "@0 sned WRITE\n").line());
        assertTrue(error(HEAD + "@0 sned WRITE\n").getMessage().startsWith("t.mrt:4: unknown command 'sned'"));
        assertEquals(5, error(HEAD + "@0 send WRITE\n   expect ACK cumm=3\n").line());
        assertEquals(4, error(HEAD + "@0 send BOGUS\n").line());
        assertEquals(4, error(HEAD + "@0 send WRITE psn=3+\n").line());
        assertEquals(4, error(HEAD + "@zz send WRITE\n").line());
        assertEquals(4, error(HEAD + "@0\n").line());
        assertEquals(4, error(HEAD + "mr a size=1\n@0 wait\n").line());
        assertEquals(3, error("case x\nids SACK-3\nlevel MAYBE\n@0 wait\n").line());
        assertEquals(2, error("case x\nids sack3\nlevel MUST\n@0 wait\n").line());
        assertEquals(1, error("case x\nlevel MUST\n@0 wait\n").line()); // no ids: reported at the case line
        assertEquals(0, error("ids SACK-1\nlevel MUST\n@0 wait\n").line()); // no case line at all
        assertEquals(5, error(HEAD + "@0 wait\nconfig mtu=1024\n").line()); // header after steps
        assertEquals(4, error(HEAD + "@0 check cq sideways\n").line());
        assertEquals(3, error("case x\nparam B 1 2\nparam C 1\nids A-1\nlevel MUST\n@0 wait\n").line());
        assertEquals(4, error(HEAD + "@0 post write wr=1 frobnicate\n").line());
        assertEquals(4, error(HEAD + "@0 send WRITE psn={B+}\n").line());
    }
}
