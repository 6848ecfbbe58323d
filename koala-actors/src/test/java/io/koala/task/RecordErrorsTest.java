package io.koala.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.function.RecordErrorPolicy;
import io.koala.function.UserFunctionException;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import org.junit.jupiter.api.Test;

class RecordErrorsTest {
  private static final TaskId TASK = new TaskId(new OperatorId("parse"), 1);

  private static UserFunctionException failure(String operator) {
    return new UserFunctionException(operator, new IllegalArgumentException("bad record"));
  }

  @Test
  void underFailEveryFailureIsRethrownAsItCame() {
    RecordErrors errors = new RecordErrors(RecordErrorPolicy.fail(), "job", TASK, 2, false);
    UserFunctionException e = failure("parse");
    assertThatThrownBy(() -> errors.skipOrThrow(e, 1, "k")).isSameAs(e);
    assertThat(errors.trySkip("n", 0, "partition 0, offset 3", new RuntimeException(), false))
        .isFalse();
    assertThat(errors.skips()).isFalse();
    assertThat(errors.skipped(0) + errors.skipped(1)).isZero();
  }

  @Test
  void underSkipEachSkipIsChargedToItsPositionUntilTheBudgetIsSpent() {
    RecordErrors errors = new RecordErrors(RecordErrorPolicy.skip(3), "job", TASK, 2, false);
    errors.skipOrThrow(failure("parse"), 1, "k1");
    errors.skipOrThrow(failure("parse"), 1, null);
    assertThat(errors.trySkip("n", 0, "partition 0, offset 3", new RuntimeException(), false))
        .isTrue();
    assertThat(errors.skipped(0)).isEqualTo(1);
    assertThat(errors.skipped(1)).isEqualTo(2);
    assertThat(errors.trySkip("n", 0, "partition 0, offset 4", new RuntimeException(), false))
        .as("the budget is spent")
        .isFalse();
    assertThatThrownBy(() -> errors.skipOrThrow(failure("parse"), 1, "k9"))
        .isInstanceOf(UserFunctionException.class)
        .hasMessageContaining("operator 'parse'")
        .hasMessageContaining("task parse#1 skipped 3 records it could not process")
        .hasMessageContaining("(skip(3))")
        .hasMessageContaining("key k9")
        .hasMessageContaining("bad record");
    assertThat(errors.skipped(0) + errors.skipped(1))
        .as("refused ones are not counted")
        .isEqualTo(3);
  }

  @Test
  void aPolicyRefusesABudgetItCannotHave() {
    assertThatThrownBy(() -> RecordErrorPolicy.skip(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1");
    assertThatThrownBy(() -> new RecordErrorPolicy(false, 3, false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RecordErrorPolicy(false, 0, true))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RecordErrorPolicy.deadLetter(0)).hasMessageContaining("deadLetter(0)");
    assertThat(RecordErrorPolicy.deadLetter(5)).hasToString("deadLetter(5)");
    assertThat(RecordErrorPolicy.skip(1_000)).hasToString("skip(1,000)");
    assertThat(RecordErrorPolicy.fail()).hasToString("fail");
  }
}
