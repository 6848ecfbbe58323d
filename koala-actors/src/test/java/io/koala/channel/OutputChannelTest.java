package io.koala.channel;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.protocol.ChannelItem;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.RecordBatch;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sender side of credit-based flow control. */
class OutputChannelTest {

  /** What a channel handed to its sender, in order. */
  private final List<Long> seqs = new ArrayList<>();

  private final List<ChannelItem> items = new ArrayList<>();
  private final OutputChannel.Sender sender =
      (ch, seq, item) -> {
        seqs.add(seq);
        items.add(item);
      };

  private static RecordBatch batch(Object value) {
    return new RecordBatch(new Object[] {value}, new long[] {0}, 1);
  }

  @Test
  void sendsWithinTheInitialCreditAndQueuesTheRest() {
    OutputChannel ch = new OutputChannel(3, "t#0", 2);
    ch.offer(batch("a"), sender);
    ch.offer(batch("b"), sender);
    ch.offer(batch("c"), sender);
    assertThat(seqs).containsExactly(0L, 1L);
    assertThat(ch.sent()).isEqualTo(2);
    assertThat(ch.queued()).isEqualTo(1);
    assertThat(ch.id()).isEqualTo(3);
    assertThat(ch.target()).isEqualTo("t#0");
  }

  @Test
  void noCreditMeansNothingIsSent() {
    OutputChannel ch = new OutputChannel(0, "t", 0);
    ch.offer(batch("a"), sender);
    ch.offer(EndOfChannel.INSTANCE, sender);
    assertThat(seqs).isEmpty();
    assertThat(ch.queued()).isEqualTo(2);
  }

  @Test
  void creditReleasesQueuedItemsInFifoOrderUpToTheLimit() {
    OutputChannel ch = new OutputChannel(0, "t", 1);
    RecordBatch a = batch("a");
    RecordBatch b = batch("b");
    RecordBatch c = batch("c");
    ch.offer(a, sender);
    ch.offer(b, sender);
    ch.offer(c, sender);
    ch.offer(EndOfChannel.INSTANCE, sender);
    assertThat(items).containsExactly(a);

    ch.onCredit(3, sender);
    assertThat(items).containsExactly(a, b, c);
    assertThat(seqs).containsExactly(0L, 1L, 2L);
    assertThat(ch.queued()).isEqualTo(1);

    ch.onCredit(10, sender);
    assertThat(items).containsExactly(a, b, c, EndOfChannel.INSTANCE);
    assertThat(seqs).containsExactly(0L, 1L, 2L, 3L);
    assertThat(ch.queued()).isZero();
  }

  @Test
  void anItemOfferedWhileOthersWaitQueuesBehindThem() {
    OutputChannel ch = new OutputChannel(0, "t", 0);
    RecordBatch a = batch("a");
    RecordBatch b = batch("b");
    ch.offer(a, sender);
    ch.onCredit(1, sender);
    assertThat(items).containsExactly(a);
    ch.offer(b, sender);
    ch.onCredit(2, sender);
    assertThat(items).containsExactly(a, b);
    assertThat(seqs).containsExactly(0L, 1L);
  }

  @Test
  void creditIsCumulativeSoLowerAndRepeatedGrantsAreHarmless() {
    OutputChannel ch = new OutputChannel(0, "t", 0);
    ch.onCredit(2, sender);
    ch.onCredit(1, sender); // a late, lower grant
    ch.onCredit(2, sender); // a repeated grant
    ch.onCredit(0, sender);
    for (int i = 0; i < 4; i++) {
      ch.offer(batch(i), sender);
    }
    assertThat(seqs).containsExactly(0L, 1L);
    assertThat(ch.queued()).isEqualTo(2);
    ch.onCredit(1, sender);
    assertThat(seqs).containsExactly(0L, 1L);
    ch.onCredit(3, sender);
    assertThat(seqs).containsExactly(0L, 1L, 2L);
    assertThat(ch.toString()).contains("sent 3").contains("limit 3");
  }

  @Test
  void creditWithNothingQueuedSendsNothingButIsKept() {
    OutputChannel ch = new OutputChannel(0, "t", 0);
    ch.onCredit(5, sender);
    assertThat(seqs).isEmpty();
    for (int i = 0; i < 6; i++) {
      ch.offer(batch(i), sender);
    }
    assertThat(seqs).containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(ch.queued()).isEqualTo(1);
  }
}
