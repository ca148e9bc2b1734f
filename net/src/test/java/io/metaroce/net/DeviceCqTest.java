package io.metaroce.net;

import io.metaroce.core.CompletionQueue;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.Engine;
import io.metaroce.core.WcOpcode;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The device's own completions are never lost when the application has let the ring fill. */
class DeviceCqTest {
    @Test
    void directCompletionsWaitForRoomInOrder() {
        CompletionQueue engineCq = new Engine(new EngineConfig(), new SplittableRandom(1)).createCq(8);
        DeviceCq cq = new DeviceCq(engineCq, 8);
        for (int i = 0; i < 40; i++) { // 8 fit in the ring; 32 wait
            cq.offerDirect(i, WcStatus.LOC_QP_OP_ERR, i % 2 == 0 ? WcOpcode.SEND : WcOpcode.RECV, 7);
        }
        assertEquals(32, cq.pendingDirect());
        WorkCompletion wc = new WorkCompletion();
        long next = 0;
        while (next < 40) {
            int polled = 0;
            while (cq.poll(wc)) {
                assertEquals(next, wc.wrId(), "in order");
                assertEquals(WcStatus.LOC_QP_OP_ERR, wc.status());
                assertEquals(next % 2 == 0 ? WcOpcode.SEND : WcOpcode.RECV, wc.opcode());
                assertEquals(7, wc.qpn());
                next++;
                polled++;
            }
            assertTrue(polled > 0, "progress");
            cq.publish(); // the agent's next cycle moves waiting completions into the freed room
        }
        assertEquals(0, cq.pendingDirect());
        assertFalse(cq.poll(wc));
    }
}
