package io.koala.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.protocol.ProtocolViolationException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The receiver side of credit-based flow control. */
class InputChannelTest {

  @Test
  void acceptsConsecutiveItemsWithinTheWindow() {
    InputChannel ch = new InputChannel(4, "src#0", 1, 3);
    ch.accept(0, false);
    ch.accept(1, false);
    ch.accept(2, false);
    assertThat(ch.inFlight()).isEqualTo(3);
    assertThat(ch.id()).isEqualTo(4);
    assertThat(ch.source()).isEqualTo("src#0");
    assertThat(ch.input()).isEqualTo(1);
    assertThat(ch.granted()).isEqualTo(3);
  }

  @Test
  void aGapIsAProtocolViolation() {
    InputChannel ch = new InputChannel(4, "src#0", 0, 8);
    ch.accept(0, false);
    assertThatThrownBy(() -> ch.accept(2, false))
        .isInstanceOf(ProtocolViolationException.class)
        .hasMessageContaining("channel 4")
        .hasMessageContaining("src#0")
        .hasMessageContaining("expected item 1 but got 2");
  }

  @Test
  void aFirstItemOtherThanZeroIsAGap() {
    InputChannel ch = new InputChannel(0, "s", 0, 8);
    assertThatThrownBy(() -> ch.accept(1, false))
        .isInstanceOf(ProtocolViolationException.class)
        .hasMessageContaining("expected item 0 but got 1");
  }

  @Test
  void aDuplicateIsAProtocolViolation() {
    InputChannel ch = new InputChannel(0, "s", 0, 8);
    ch.accept(0, false);
    ch.accept(1, false);
    assertThatThrownBy(() -> ch.accept(1, false))
        .isInstanceOf(ProtocolViolationException.class)
        .hasMessageContaining("expected item 2 but got 1");
  }

  @Test
  void anItemBeyondTheGrantIsAProtocolViolation() {
    InputChannel ch = new InputChannel(0, "s", 0, 2);
    ch.accept(0, false);
    ch.accept(1, false);
    assertThatThrownBy(() -> ch.accept(2, false))
        .isInstanceOf(ProtocolViolationException.class)
        .hasMessageContaining("item 2 sent without credit");
  }

  @Test
  void anItemAfterEndOfChannelIsAProtocolViolation() {
    InputChannel ch = new InputChannel(0, "s", 0, 4);
    ch.accept(0, true);
    assertThat(ch.consumed(true)).isEqualTo(-1);
    assertThat(ch.ended()).isTrue();
    assertThatThrownBy(() -> ch.accept(1, false))
        .isInstanceOf(ProtocolViolationException.class)
        .hasMessageContaining("after end-of-channel");
  }

  @Test
  void grantsInStepsOfHalfAWindow() {
    InputChannel ch = new InputChannel(0, "s", 0, 8);
    List<Long> grants = new ArrayList<>();
    for (long seq = 0; seq < 16; seq++) {
      ch.accept(seq, false);
      long g = ch.consumed(false);
      grants.add(g);
      if (g >= 0) {
        assertThat(ch.granted()).isEqualTo(g);
      }
    }
    assertThat(grants)
        .containsExactly(
            -1L, -1L, -1L, 12L, -1L, -1L, -1L, 16L, -1L, -1L, -1L, 20L, -1L, -1L, -1L, 24L);
    // Whatever the cadence, the grant stays within one window of what was consumed.
    assertThat(ch.granted()).isEqualTo(16 + 8);
    assertThat(ch.inFlight()).isZero();
  }

  @Test
  void aWindowOfOneGrantsAfterEveryItem() {
    InputChannel ch = new InputChannel(0, "s", 0, 1);
    for (long seq = 0; seq < 5; seq++) {
      ch.accept(seq, false);
      assertThat(ch.consumed(false)).isEqualTo(seq + 2);
    }
  }

  @Test
  void aWindowOfThreeGrantsAfterEveryItem() {
    InputChannel ch = new InputChannel(0, "s", 0, 3);
    ch.accept(0, false);
    assertThat(ch.consumed(false)).isEqualTo(4);
    ch.accept(1, false);
    assertThat(ch.consumed(false)).isEqualTo(5);
  }

  @Test
  void anItemAfterAnAcceptedButUnconsumedEndOfChannelIsAProtocolViolation() {
    InputChannel ch = new InputChannel(0, "s", 0, 4);
    ch.accept(0, true);
    assertThatThrownBy(() -> ch.accept(1, false))
        .isInstanceOf(ProtocolViolationException.class)
        .hasMessageContaining("after end-of-channel");
  }

  @Test
  void consumingEndOfChannelGrantsNothing() {
    InputChannel ch = new InputChannel(0, "s", 0, 1);
    ch.accept(0, true);
    assertThat(ch.consumed(true)).isEqualTo(-1);
    assertThat(ch.granted()).isEqualTo(1);
  }

  @Test
  void windowMustBePositive() {
    assertThatThrownBy(() -> new InputChannel(0, "s", 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1");
  }

  @Test
  void thereIsNothingToResendUntilTheFirstGrantBeyondTheInitialWindow() {
    // a channel a reconfiguration adds is opened by its sender only at the switch: re-sending the
    // initial window before then would name a channel the sender does not have yet
    InputChannel ch = new InputChannel(4, "src#0", 0, 4);
    assertThat(ch.hasGranted()).isFalse();
    ch.accept(0, false);
    ch.accept(1, false);
    assertThat(ch.consumed(false)).isEqualTo(-1);
    assertThat(ch.hasGranted()).isFalse();
    assertThat(ch.consumed(false)).isEqualTo(6);
    assertThat(ch.hasGranted()).isTrue();
  }
}
