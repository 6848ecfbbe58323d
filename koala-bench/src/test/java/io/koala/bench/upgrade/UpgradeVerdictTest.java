package io.koala.bench.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The upgrade experiment's judge: lost, duplicated and wrong totals are each told apart. */
class UpgradeVerdictTest {
  private static final int RECORDS = 1_000;
  private static final int CUSTOMERS = 7;
  private static final Map<Long, long[]> REFERENCE = UpgradeVerdict.reference(RECORDS, CUSTOMERS);

  /** What an exactly-once run publishes: each order's totals once, in input order. */
  private static List<OrderTotals.Total> exact() {
    List<OrderTotals.Total> out = new ArrayList<>();
    Map<Long, long[]> running = new java.util.HashMap<>();
    for (long i = 0; i < RECORDS; i++) {
      OrderTotals.Order o = OrderTotals.order(i, CUSTOMERS);
      long[] t = running.computeIfAbsent(o.customer(), k -> new long[2]);
      t[0]++;
      t[1] += o.amount();
      out.add(new OrderTotals.Total(o.customer(), t[0], t[1]));
    }
    return out;
  }

  @Test
  void anExactlyOnceOutputIsEquivalentWithNothingLostOrDuplicated() {
    assertThat(REFERENCE).hasSize(CUSTOMERS);
    assertThat(UpgradeVerdict.of(exact(), REFERENCE))
        .isEqualTo(new UpgradeVerdict(true, 0, 0, RECORDS));
  }

  @Test
  void aMissingPublicationIsLostAndARepeatedOneDuplicated() {
    List<OrderTotals.Total> out = exact();
    out.remove(10);
    out.add(out.get(20));
    UpgradeVerdict v = UpgradeVerdict.of(out, REFERENCE);
    assertThat(v.recordsLost()).isEqualTo(1);
    assertThat(v.recordsDuplicated()).isEqualTo(1);
  }

  @Test
  void anOrderAppliedTwiceShowsAsACountPastTheInputAndWrongTotals() {
    List<OrderTotals.Total> out = exact();
    OrderTotals.Total last = out.get(out.size() - 1);
    out.add(new OrderTotals.Total(last.customer(), last.count() + 1, last.sum() + 5));
    UpgradeVerdict v = UpgradeVerdict.of(out, REFERENCE);
    assertThat(v.outputEquivalent()).isFalse();
    assertThat(v.recordsDuplicated()).isEqualTo(1);
    assertThat(v.recordsLost()).isZero();
  }

  @Test
  void aWrongFinalSumIsNotEquivalent() {
    List<OrderTotals.Total> out = exact();
    OrderTotals.Total last = out.remove(out.size() - 1);
    out.add(new OrderTotals.Total(last.customer(), last.count(), last.sum() + 1));
    assertThat(UpgradeVerdict.of(out, REFERENCE).outputEquivalent()).isFalse();
  }
}
