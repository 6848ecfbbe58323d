package io.koala.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.coordinator.JobInput;
import io.koala.coordinator.JobReply;
import io.koala.job.JobStatus;
import io.koala.runtime.JobFailedException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A handle attached to a job coordinated on another node follows the job's status, and fails,
 * naming the coordinator's node, when the coordinator stops without a word of the job's end; a last
 * word that comes just before the stop is kept.
 */
class JobListenerTest {
  private static final ActorTestKit KIT = ActorTestKit.create();

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  private record Attached(
      TestProbe<JobInput> coordinator,
      AtomicReference<JobStatus> status,
      CompletableFuture<JobStatus> completion,
      JobInput.Subscribe subscription) {}

  private static Attached attach(String name) {
    TestProbe<JobInput> coordinator = KIT.createTestProbe(name);
    AtomicReference<JobStatus> status = new AtomicReference<>(JobStatus.RUNNING);
    CompletableFuture<JobStatus> completion = new CompletableFuture<>();
    ActorRef<JobInput> ref = coordinator.getRef();
    KIT.spawn(JobListener.subscribing(name, ref, false, null, ref, status, completion), name);
    JobInput.Subscribe s = coordinator.expectMessageClass(JobInput.Subscribe.class);
    assertThat(s.submission()).isFalse();
    return new Attached(coordinator, status, completion, s);
  }

  @Test
  void aCoordinatorThatStopsWithoutAWordFailsTheHandleNamingItsNode() throws Exception {
    Attached a = attach("silent");
    a.subscription().listener().tell(new JobReply.StatusChanged(JobStatus.RUNNING, null));
    a.coordinator().stop();
    try {
      a.completion().get(10, TimeUnit.SECONDS);
      throw new AssertionError("the handle did not fail");
    } catch (ExecutionException e) {
      assertThat(e.getCause())
          .isInstanceOf(JobFailedException.class)
          .hasMessageContaining("job silent's coordinator on pekko://")
          .hasMessageContaining("stopped (its node left or failed): the job ended with it");
    }
    assertThat(a.status().get()).isEqualTo(JobStatus.FAILED);
  }

  @Test
  void theJobsEndToldJustBeforeTheStopIsKept() throws Exception {
    Attached a = attach("finishing");
    a.subscription().listener().tell(new JobReply.StatusChanged(JobStatus.FINISHED, null));
    a.coordinator().stop();
    assertThat(a.completion().get(10, TimeUnit.SECONDS)).isEqualTo(JobStatus.FINISHED);
    assertThat(a.status().get()).isEqualTo(JobStatus.FINISHED);
    assertThat(JobListener.LAST_WORD).isLessThan(Duration.ofSeconds(10));
  }
}
