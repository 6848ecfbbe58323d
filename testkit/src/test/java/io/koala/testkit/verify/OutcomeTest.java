package io.koala.testkit.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The oracle's comparison of a run's output with the reference's. */
class OutcomeTest {

  @Test
  void outputsAreComparedAsMultisets() {
    assertThat(Outcome.compare("s", List.of(2, 1, 1), List.of(1, 2, 1), 5)).isEmpty();
    assertThat(Outcome.compare("s", List.of(1, 2), List.of(1, 1, 2), 5))
        .containsExactly("s: 1 got 1, expected 2");
    assertThat(Outcome.compare("s", List.of(1, 1, 2, 3), List.of(1, 2), 5))
        .containsExactly("s: 1 got 2, expected 1", "s: 3 got 1, expected 0");
  }

  /**
   * After a fallback past a corrupt checkpoint, what was published since the checkpoint restored
   * may come once more, and nothing else: not a third time, and nothing may be missing.
   */
  @Test
  void aRepeatableValueMayComeOnceMoreAndNoMore() {
    List<Object> expected = List.of(1, 2, 3);
    List<Object> repeatable = List.of(2, 3);
    assertThat(Outcome.compare("s", List.of(1, 2, 3), expected, repeatable, 5)).isEmpty();
    assertThat(Outcome.compare("s", List.of(1, 2, 2, 3, 3), expected, repeatable, 5)).isEmpty();
    assertThat(Outcome.compare("s", List.of(1, 2, 2, 2, 3), expected, repeatable, 5))
        .containsExactly("s: 2 got 3, expected 1 to 2");
    assertThat(Outcome.compare("s", List.of(1, 1, 2, 3), expected, repeatable, 5))
        .containsExactly("s: 1 got 2, expected 1");
    assertThat(Outcome.compare("s", List.of(2, 2, 3), expected, repeatable, 5))
        .containsExactly("s: 1 got 0, expected 1");
  }
}
