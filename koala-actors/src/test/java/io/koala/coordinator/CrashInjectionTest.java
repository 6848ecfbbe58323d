package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a planned crash is due, and that crashes strike one at a time. */
class CrashInjectionTest {
  private static final List<TaskId> TASKS =
      List.of(new TaskId(new OperatorId("count"), 0), new TaskId(new OperatorId("count"), 1));

  @Test
  void eachKindIsDueAtItsPointAndStrikesOnce() {
    CrashInjection c = new CrashInjection();
    PlannedCrash at = new PlannedCrash.At(100);
    PlannedCrash phase = new PlannedCrash.InPhase(EpochDriver.Phase.SWITCHING);
    PlannedCrash checkpoint = new PlannedCrash.InCheckpoint(2);
    c.plan(7, List.of(at, phase, checkpoint));
    assertThat(c.timed()).isTrue();
    assertThat(c.due(99, EpochDriver.Phase.PREPARING, 1)).isNull();
    assertThat(c.due(100, null, -1)).isEqualTo(at);
    assertThat(c.due(0, EpochDriver.Phase.SWITCHING, -1)).isEqualTo(phase);
    assertThat(c.due(0, null, 2)).isEqualTo(checkpoint);
    TaskId victim = c.strike(at, TASKS, 100, "processing");
    assertThat(TASKS).contains(victim);
    assertThat(c.timed()).isFalse();
    assertThat(c.due(0, EpochDriver.Phase.SWITCHING, 2))
        .as("nothing until the job rolled back")
        .isNull();
    c.rolledBack();
    assertThat(c.due(0, EpochDriver.Phase.SWITCHING, -1)).isEqualTo(phase);
    assertThat(c.injected())
        .containsExactly(new PlannedCrash.Injected(victim, 100, "processing", at));
    assertThatThrownBy(() -> c.strike(at, TASKS, 200, "processing"))
        .hasMessageContaining("not due");
  }

  @Test
  void plansAreChecked() {
    assertThatThrownBy(() -> new PlannedCrash.At(-1)).hasMessageContaining("negative");
    assertThatThrownBy(() -> new PlannedCrash.InPhase(EpochDriver.Phase.DONE))
        .hasMessageContaining("DONE");
    assertThatThrownBy(() -> new PlannedCrash.InCheckpoint(-1)).hasMessageContaining("negative");
  }
}
