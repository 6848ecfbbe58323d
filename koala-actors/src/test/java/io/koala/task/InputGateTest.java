package io.koala.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.protocol.ProtocolViolationException;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.Watermark;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The input gate queues per channel but hands items out in arrival order across the channels that
 * may flow; a channel held behind a barrier keeps its items, in order, and they come first once it
 * is released (they arrived before anything queued after them).
 */
class InputGateTest {
  private static final TaskId UP_0 = new TaskId(new OperatorId("up"), 0);
  private static final TaskId UP_1 = new TaskId(new OperatorId("up"), 1);

  private final FakeServices services = new FakeServices();
  private final InputGate gate =
      new InputGate(
          new TaskSetup(
              "job",
              new TaskId(new OperatorId("count"), 0),
              1,
              8,
              List.of(new TaskSetup.InputSpec(10, UP_0, 0), new TaskSetup.InputSpec(11, UP_1, 0)),
              List.of(),
              List.of(),
              99,
              new ChannelSettings(16, 1 << 20, 5, 64)),
          services);
  private final long[] seq = new long[2];

  private Deliver deliver(int channel, long watermark) {
    Deliver d = new Deliver(channel, seq[channel - 10]++, new Watermark(watermark));
    gate.accept(d);
    return d;
  }

  /** Takes items, oldest first, until none may flow. */
  private List<Deliver> takeAll() {
    List<Deliver> out = new ArrayList<>();
    for (InputGate.Lane lane = gate.oldest(InputGate.Admission.ALL);
        lane != null;
        lane = gate.oldest(InputGate.Admission.ALL)) {
      Deliver head = gate.peek(lane);
      assertThat(gate.poll(lane)).isSameAs(head);
      out.add(head);
    }
    return out;
  }

  @Test
  void itemsComeOutInArrivalOrderAcrossChannels() {
    List<Deliver> in = new ArrayList<>();
    for (int i = 0; i < 20; i++) { // more than a lane's first ring, so it grows
      in.add(deliver(i % 3 == 0 ? 11 : 10, i));
    }
    assertThat(takeAll()).containsExactlyElementsOf(in);
  }

  @Test
  void aHeldChannelWaitsAndThenGoesFirst() {
    deliver(10, 0);
    InputGate.Lane a = gate.oldest(InputGate.Admission.ALL);
    gate.poll(a);
    assertThat(gate.hold(a)).isTrue();
    assertThat(gate.hold(a)).isFalse(); // a second barrier on one channel
    Deliver a1 = deliver(10, 1);
    Deliver b0 = deliver(11, 0);
    Deliver a2 = deliver(10, 2);
    InputGate.Lane b = gate.oldest(InputGate.Admission.ALL);
    assertThat(gate.peek(b)).isSameAs(b0); // a's items wait behind the barrier
    gate.poll(b);
    assertThat(gate.oldest(InputGate.Admission.ALL)).isNull();
    assertThat(gate.allHeld()).isFalse();
    assertThat(gate.pending()).isZero();
    Deliver b1 = deliver(11, 1);
    gate.hold(b);
    assertThat(gate.allHeld()).isTrue();
    gate.releaseHolds();
    assertThat(takeAll()).containsExactly(a1, a2, b1);
  }

  @Test
  void aFilterPicksTheOldestOfTheChannelsItAccepts() {
    deliver(10, 0);
    Deliver b0 = deliver(11, 0);
    InputGate.Lane b = gate.oldest((channel, item, arrival) -> channel == 11);
    assertThat(gate.poll(b)).isSameAs(b0);
    assertThat(gate.oldest((channel, item, arrival) -> channel == 11)).isNull();
    assertThat(gate.oldest(InputGate.Admission.ALL)).isNotNull();
  }

  @Test
  void anItemOnAnUnknownChannelIsAViolation() {
    assertThatThrownBy(() -> gate.accept(new Deliver(12, 0, new Watermark(0))))
        .isInstanceOf(ProtocolViolationException.class)
        .hasMessageContaining("has no input channel 12");
  }
}
