package io.koala.task;

import static io.koala.task.TaskStatus.CANCELLED;
import static io.koala.task.TaskStatus.CREATED;
import static io.koala.task.TaskStatus.FAILED;
import static io.koala.task.TaskStatus.FINISHED;
import static io.koala.task.TaskStatus.FINISHING;
import static io.koala.task.TaskStatus.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A task's lifecycle: the transitions its diagram allows, and no others. */
class TaskStatusTest {

  @Test
  void theDiagramsTransitionsAreAllowed() {
    assertThat(CREATED.to(RUNNING).to(FINISHING).to(FINISHED).to(FAILED)).isEqualTo(FAILED);
    assertThat(CREATED.to(FINISHED))
        .as("a retired holder resumed from its snapshot")
        .isEqualTo(FINISHED);
    for (TaskStatus s : new TaskStatus[] {CREATED, RUNNING, FINISHING}) {
      assertThat(s.to(CANCELLED)).isEqualTo(CANCELLED);
      assertThat(s.to(FAILED)).isEqualTo(FAILED);
    }
  }

  @Test
  void anythingElseIsRefused() {
    assertThatThrownBy(() -> RUNNING.to(FINISHED))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a RUNNING task cannot become FINISHED");
    assertThatThrownBy(() -> FINISHED.to(RUNNING)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> FINISHED.to(CANCELLED)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> CANCELLED.to(FAILED)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> FAILED.to(FAILED)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> CREATED.to(FINISHING)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void predicatesSayWhatATaskDoes() {
    assertThat(CANCELLED.stopped()).isTrue();
    assertThat(FINISHED.stopped()).isFalse();
    assertThat(FINISHED.ended()).isTrue();
    assertThat(FINISHING.processing()).isTrue();
    assertThat(FINISHED.processing()).isFalse();
    assertThat(CREATED.servesQueries())
        .as("its operators have not declared their states")
        .isFalse();
    assertThat(FINISHED.servesQueries()).isTrue();
  }
}
