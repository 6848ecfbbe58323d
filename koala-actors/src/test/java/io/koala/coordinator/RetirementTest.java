package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.EpochMessage;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When the coordinator may stop a retired holder (hazard C5): only once every live task of the
 * operator has reported, for the current publication and outside any epoch, that it references the
 * holder no more.
 */
class RetirementTest {
  static final OperatorId OP = new OperatorId("count");
  static final OperatorId OTHER = new OperatorId("other");
  static final DrainSettings SETTINGS = new DrainSettings(25, 512, 10);

  static TaskId t(int i) {
    return new TaskId(OP, i);
  }

  static EpochMessage.References refs(long epoch, int task, Integer... holders) {
    return new EpochMessage.References(epoch, t(task), List.of(holders));
  }

  /** The retirement as the coordinator keeps it: each event replaces it. */
  Retirement retirement = new Retirement(SETTINGS);

  final List<TaskId> live = List.of(t(0), t(1));

  private <T> List<T> apply(Function<Retirement, Retirement.Changed<List<T>>> event) {
    Retirement.Changed<List<T>> c = event.apply(retirement);
    retirement = c.next();
    return c.out();
  }

  @BeforeEach
  void retiredTasksHaveFinished() {
    apply(r -> r.taskFinished(t(2)));
    apply(r -> r.taskFinished(t(3)));
  }

  @Test
  void anUnreferencedHolderStopsOnlyOnceItHasFinished() {
    retirement = new Retirement(SETTINGS); // t(2) has not finished
    retirement = retirement.epochStarted(OP);
    apply(r -> r.epochEnded(OP, 1, List.of(t(2)), live));
    apply(r -> r.on(refs(1, 0), live));
    assertThat(apply(r -> r.on(refs(1, 1), live))).as("its outputs are still delivering").isEmpty();
    assertThat(retirement.retiring(OP)).isEmpty();
    assertThat(apply(r -> r.taskFinished(t(1)))).isEmpty();
    assertThat(apply(r -> r.taskFinished(t(2)))).containsExactly(t(2));
  }

  @Test
  void anEpochWithoutRetiredTasksPublishesNothing() {
    retirement = retirement.epochStarted(OP);
    assertThat(apply(r -> r.epochEnded(OP, 1, List.of(new TaskId(OTHER, 3)), live))).isEmpty();
  }

  @Test
  void aHolderStopsOnceNoLiveTaskReferencesIt() {
    retirement = retirement.epochStarted(OP);
    List<Retirement.Publish> published = apply(r -> r.epochEnded(OP, 4, List.of(t(2), t(3)), live));
    assertThat(published).extracting(Retirement.Publish::task).containsExactly(t(0), t(1));
    assertThat(published.get(0).command().holders()).containsExactly(2, 3);
    assertThat(published.get(0).command().epoch()).isEqualTo(4);

    assertThat(apply(r -> r.on(refs(4, 0, 2), live))).as("task 1 has not reported").isEmpty();
    assertThat(apply(r -> r.on(refs(4, 1, 2, 3), live))).isEmpty();
    assertThat(apply(r -> r.on(refs(4, 1, 2), live))).containsExactly(t(3));
    assertThat(retirement.unreferenced(t(3))).isTrue();
    assertThat(retirement.unreferenced(t(2))).isFalse();
    assertThat(apply(r -> r.on(refs(4, 0), live))).isEmpty();
    assertThat(apply(r -> r.on(refs(4, 1), live))).containsExactly(t(2));
    assertThat(retirement.retiring(OP)).isEmpty();
    assertThat(retirement.kept().unreferenced(t(2))).as("kept with a checkpoint").isTrue();
    assertThat(retirement.unreferenced(t(0))).isFalse();
  }

  @Test
  void reportsFromBeforeThePublicationOrDuringAnEpochDoNotCount() {
    retirement = retirement.epochStarted(OP);
    apply(r -> r.epochEnded(OP, 4, List.of(t(2)), live));
    assertThat(apply(r -> r.on(refs(4, 0), live))).isEmpty();
    // an epoch starts: task 1 may hand a bucket that references 2 to task 0, which reported none
    retirement = retirement.epochStarted(OP);
    assertThat(apply(r -> r.on(refs(4, 1), live))).isEmpty();
    assertThat(apply(r -> r.on(refs(5, 1), live))).isEmpty();
    apply(r -> r.epochEnded(OP, 6, List.of(t(2)), live));
    assertThat(apply(r -> r.on(refs(4, 0), live))).as("stale publication").isEmpty();
    assertThat(apply(r -> r.on(refs(6, 0, 2), live))).isEmpty();
    assertThat(apply(r -> r.on(refs(6, 1), live))).as("task 0 still references 2").isEmpty();
    assertThat(apply(r -> r.on(refs(6, 0), live))).containsExactly(t(2));
  }

  @Test
  void aStoppedHolderIsNotPublishedAgain() {
    retirement = retirement.epochStarted(OP);
    apply(r -> r.epochEnded(OP, 1, List.of(t(2)), live));
    apply(r -> r.on(refs(1, 0), live));
    assertThat(apply(r -> r.on(refs(1, 1), live))).containsExactly(t(2));
    retirement = retirement.epochStarted(OP);
    assertThat(apply(r -> r.epochEnded(OP, 2, List.of(t(2)), live))).isEmpty();
  }

  @Test
  void whatACheckpointKeptStaysAsItWasAndAsksTheOwnersAgain() {
    retirement = retirement.epochStarted(OP);
    apply(r -> r.epochEnded(OP, 1, List.of(t(2), t(3)), live));
    apply(r -> r.on(refs(1, 0), live));
    Retirement kept = retirement.kept();
    assertThat(apply(r -> r.on(refs(1, 1), live))).containsExactlyInAnyOrder(t(2), t(3));
    assertThat(kept.retiring(OP)).as("the checkpoint's value").containsExactlyInAnyOrder(2, 3);
    assertThat(kept.unreferenced(t(2))).isFalse();

    // a rollback to it: task 0's report was not kept, so task 1's alone stops nothing
    retirement = kept;
    List<Retirement.Publish> again = apply(r -> r.republish(7, op -> live));
    assertThat(again).extracting(Retirement.Publish::task).containsExactly(t(0), t(1));
    assertThat(again.get(0).command().epoch()).isEqualTo(7);
    assertThat(apply(r -> r.on(refs(7, 1), live))).isEmpty();
    assertThat(apply(r -> r.on(refs(7, 0), live))).containsExactlyInAnyOrder(t(2), t(3));
  }
}
