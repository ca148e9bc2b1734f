package io.metaroce.conformance.target;

import io.metaroce.conformance.CaseResult;
import io.metaroce.conformance.Runner;
import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.script.ScriptParser;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The in-process connection manager beyond what the suite's cm cases pin down: the CM-4 retry schedule and the
 * failed attempt, the responder's RTS on RTU and on the first data packet (CM-8), the initiator's RTS and first
 * data PSN (CM-7, CM-12), the remembered REJ (CM-9) and the end of TIME_WAIT (CM-10).
 */
class CmEndpointTest {
    private static final String HEAD = "ids CM-4\nlevel MUST\nrequires cm\nconfig paths=1 planes=1 mtu=1024";

    private static void passes(String name, String extraHead, String body) {
        List<Script> s = ScriptParser.parse("t.mrt", "cm", "case " + name + "\n" + HEAD + " " + extraHead + "\n"
                + body);
        try (InProcessTarget target = new InProcessTarget(Mutation.NONE, 7)) {
            assertTrue(target.capabilities().contains(Target.CM));
            CaseResult r = new Runner(0).run(s.get(0), target);
            assertEquals(CaseResult.Status.PASS, r.status(), () -> r.message() + " " + r.diffs() + "\n"
                    + String.join("\n", r.trace()));
        }
    }

    @Test
    void reqRetriesDoubleFromOneMillisecondThenTheAttemptFails() {
        passes("retry-schedule", "", """
                qp CONNECT
                @0     expect CM_REQ t=0 cid=?c
                @600ms expect CM_REQ cid=$c t=1ms
                       expect CM_REQ cid=$c t=3ms
                       expect CM_REQ cid=$c t=7ms
                       expect CM_REQ cid=$c t=15ms
                       expect CM_REQ cid=$c t=31ms
                       expect CM_REQ cid=$c t=63ms
                       expect CM_REQ cid=$c t=127ms
                       expect CM_REQ cid=$c t=255ms
                       check sent CM_REQ total=9
                       check state ERROR
                """);
    }

    @Test
    void responderIsRtrUntilRtuThenRts() {
        passes("rtu", "", """
                qp LISTEN
                @0   send CM_REQ cid=0x1 ipsn=0x5000 mtu=1024 paths=1 planes=1
                     expect CM_REP cid=0x1 cqpn=?q
                     check state RTR
                     send CM_RTU cid=0x1 pqpn=$q planes=0 mtu=0 paths=0 port=0
                     check state RTS
                """);
    }

    @Test
    void firstDataPacketIsAnImplicitRtu() {
        passes("implicit-rtu", "\nmr A size=4096 access=lw,rw", """
                qp LISTEN
                @0   send CM_REQ cid=0x2 ipsn=0x5000 mtu=1024 paths=1 planes=1
                     expect CM_REP cid=0x2 cqpn=?q
                     send WRITE dqpn=$q psn=0 msn=0 len=64 va=A rkey=A pat=3
                     expect ACK dqpn=TQPN cum=0
                     check state RTS
                     check mem A off=0 len=64 pat=3
                """);
    }

    @Test
    void initiatorIsRtsAfterRepAndSendsFromItsInitialPsn() {
        passes("initiator-rts", "\nmr A size=4096 access=lw,rw", """
                qp CONNECT
                @0   expect CM_REQ cid=?c cqpn=?q
                +1ms send CM_REP cid=$c pqpn=$q ipsn=0x5000 mtu=1024 paths=1 planes=1
                     expect CM_RTU cid=$c
                     check state RTS
                     post write wr=1 mr=A off=0 len=64 va=0x100 rkey=9
                     expect WRITE dqpn=TQPN sqpn=$q psn=0 msn=0
                """);
    }

    @Test
    void aRejectIsRememberedForDuplicateRequests() {
        passes("rej-remembered", "", """
                qp LISTEN
                @0   send CM_REQ cid=0x3 ipsn=1 mtu=512 paths=1 planes=1
                     expect CM_REJ cid=0x3 reason=INVALID_PARAMS sqpn=0 cqpn=0 port=0 ipsn=0 mtu=0 paths=0 planes=0
                +1ms send CM_REQ cid=0x3 ipsn=1 mtu=512 paths=1 planes=1
                     expect CM_REJ cid=0x3 reason=INVALID_PARAMS
                     check sent CM_REP total=0
                """);
    }

    @Test
    void aListenerLowersALargerRequestToWhatItRuns() {
        passes("rep-lowers", "", """
                qp LISTEN
                @0   send CM_REQ cid=0x5 ipsn=1 mtu=4096 paths=8 planes=4
                     expect CM_REP cid=0x5 mtu=1024 paths=1 planes=1
                """);
    }

    @Test
    void anInitiatorRejectsARepLoweredBelowWhatItRuns() {
        passes("rep-too-low", "", """
                qp CONNECT
                @0   expect CM_REQ cid=?c cqpn=?q
                +1ms send CM_REP cid=$c pqpn=$q ipsn=0x5000 mtu=512 paths=1 planes=1
                     expect CM_REJ cid=$c reason=INVALID_PARAMS sqpn=$q cqpn=$q port=0
                     check state ERROR
                """);
    }

    @Test
    void ourCloseSendsDreqUntilAnswered() {
        passes("our-close", "", """
                qp LISTEN
                @0   send CM_REQ cid=0x6 ipsn=1 mtu=1024 paths=1 planes=1
                     expect CM_REP cid=0x6 cqpn=?q
                     send CM_RTU cid=0x6 pqpn=$q planes=0 mtu=0 paths=0 port=0
                +1ms modify ERROR
                     expect CM_DREQ cid=0x6 cqpn=$q pqpn=TQPN t=1ms
                @5ms expect CM_DREQ cid=0x6 t=2ms
                     expect CM_DREQ cid=0x6 t=4ms
                     send CM_DREQ cid=0x6 pqpn=$q planes=0 mtu=0 paths=0 port=0
                @100ms expect none CM_DREQ
                     check state ERROR
                """);
    }

    @Test
    void duplicateDreqIsNotAnsweredAfterTimeWait() {
        passes("time-wait", "connectionTimeout=10ms", """
                qp LISTEN
                @0   send CM_REQ cid=0x4 ipsn=1 mtu=1024 paths=1 planes=1
                     expect CM_REP cid=0x4 cqpn=?q
                     send CM_RTU cid=0x4 pqpn=$q planes=0 mtu=0 paths=0 port=0
                +1ms send CM_DREQ cid=0x4 pqpn=$q planes=0 mtu=0 paths=0 port=0
                     expect CM_DREQ cid=0x4 cqpn=$q
                     check state ERROR
                +20ms send CM_DREQ cid=0x4 pqpn=$q planes=0 mtu=0 paths=0 port=0
                +1ms expect none CM_DREQ
                """);
    }
}
