package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobStatus;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.IngestMessage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Which handle feeds each ingest source, on its own: its tasks learn it now and when started. */
class IngestAttachmentsTest {
  private static final TaskId PUSHED_0 = new TaskId(new OperatorId("pushed"), 0);
  private static final TaskId PUSHED_1 = new TaskId(new OperatorId("pushed"), 1);

  private JobStatus status = JobStatus.RUNNING;
  private final TaskRoster roster = new TaskRoster();
  private final Outbox out =
      new Outbox("pushing", LoggerFactory.getLogger(IngestAttachmentsTest.class), roster, 0);
  private final IngestAttachments ingest = new IngestAttachments(plan(), out, roster, () -> status);
  private final List<JobReply.IngestAttached> answers = new ArrayList<>();

  private static ExecutionPlan plan() {
    DataflowBuilder b = Dataflow.builder("pushing").parallelism(2);
    b.source(SourceSpec.<Long>ingest("pushed", 16)).sink(SinkSpec.discarding("out"));
    return ExecutionPlan.of(b.build().plan());
  }

  /** The replies among the effects so far, sent as a host sends them; the tasks told to attach. */
  private List<TaskId> attached() {
    List<TaskId> tasks = new ArrayList<>();
    for (JobEffect e : out.drain()) {
      if (e instanceof JobEffect.Reply<?> r) {
        r.send();
      } else if (e instanceof JobEffect.ToTask t && t.message() instanceof IngestMessage.Attach) {
        tasks.add(t.task().task());
      }
    }
    return tasks;
  }

  @Test
  void aHandleIsToldTheParallelismAndTheRunningTasksAndTasksStartedLaterLearnIt() {
    roster.deployed(new JobSetups.Address(PUSHED_0));
    ingest.onAttach(new JobInput.AttachIngest("pushed", "handle", answers::add));
    assertThat(attached()).containsExactly(PUSHED_0);
    assertThat(answers).containsExactly(new JobReply.IngestAttached(2, null));

    ingest.onStarted(List.of(new JobSetups.Address(PUSHED_1)));
    assertThat(attached()).containsExactly(PUSHED_1);
  }

  @Test
  void aHandleForAnUnknownSourceOrAnEndedJobIsRefused() {
    ingest.onAttach(new JobInput.AttachIngest("other", "handle", answers::add));
    status = JobStatus.CANCELLED;
    ingest.onAttach(new JobInput.AttachIngest("pushed", "handle", answers::add));
    assertThat(attached()).isEmpty();
    assertThat(answers)
        .extracting(JobReply.IngestAttached::error)
        .containsExactly(
            "job pushing has no ingest source named 'other'", "job pushing has ended (CANCELLED)");
    ingest.onStarted(List.of(new JobSetups.Address(PUSHED_0)));
    assertThat(attached()).isEmpty();
  }
}
