package io.koala.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.operator.IntervalJoinOperator.SortedLongs;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The pure parts of the interval join: its timestamp index and its saturating bounds. */
class IntervalJoinOperatorTest {

  private static List<Long> values(byte[] set) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < SortedLongs.size(set); i++) {
      out.add(SortedLongs.get(set, i));
    }
    return out;
  }

  @Test
  void theIndexStaysSortedAndFindsCeilings() {
    long seed = new Random().nextLong();
    System.out.println("IntervalJoinOperatorTest seed " + seed);
    Random random = new Random(seed);
    TreeSet<Long> expected = new TreeSet<>();
    byte[] set = null;
    for (int i = 0; i < 2_000; i++) {
      long v = random.nextInt(200) - 100 + (random.nextInt(50) == 0 ? Long.MIN_VALUE : 0);
      if (random.nextBoolean()) {
        set = SortedLongs.insert(set, v);
        expected.add(v);
      } else {
        set = SortedLongs.remove(set, v);
        expected.remove(v);
      }
      assertThat(values(set)).as("seed %s", seed).containsExactlyElementsOf(expected);
      long probe = random.nextInt(220) - 110;
      Long ceiling = expected.ceiling(probe);
      int at = SortedLongs.ceiling(set, probe);
      if (ceiling == null) {
        assertThat(at).isEqualTo(SortedLongs.size(set));
      } else {
        assertThat(SortedLongs.get(set, at)).isEqualTo(ceiling);
      }
    }
  }

  @Test
  void removingFromAnEmptyIndexGivesAnEmptyOne() {
    assertThat(SortedLongs.remove(null, 5)).isEmpty();
    assertThat(SortedLongs.size(null)).isZero();
    assertThat(SortedLongs.ceiling(null, 5)).isZero();
  }

  @Test
  void boundsSaturateInsteadOfOverflowing() {
    assertThat(IntervalJoinOperator.plus(Long.MAX_VALUE - 1, 5)).isEqualTo(Long.MAX_VALUE);
    assertThat(IntervalJoinOperator.plus(Long.MIN_VALUE + 1, -5)).isEqualTo(Long.MIN_VALUE);
    assertThat(IntervalJoinOperator.plus(10, -3)).isEqualTo(7);
    assertThat(IntervalJoinOperator.minus(Long.MIN_VALUE + 1, 5)).isEqualTo(Long.MIN_VALUE);
    assertThat(IntervalJoinOperator.minus(Long.MAX_VALUE - 1, -5)).isEqualTo(Long.MAX_VALUE);
    assertThat(IntervalJoinOperator.minus(10, -3)).isEqualTo(13);
  }
}
