package io.koala.coordinator;

import static io.koala.coordinator.JobSetups.CHECKPOINTS;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.job.ErrorInfo;
import io.koala.plan.OperatorNode.Kind;
import io.koala.plan.TaskId;
import io.koala.protocol.CheckpointBarrier;
import io.koala.protocol.Deliver;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.TaskSetup;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The results sent to the client on their own: when they are published, and a broken channel. */
class ClientResultsTest {
  private final List<String> told = new ArrayList<>();
  private final TaskRoster roster = new TaskRoster();
  private final Outbox out =
      new Outbox("count", LoggerFactory.getLogger(ClientResultsTest.class), roster, 0);
  private final ClientResults.Parts parts =
      new ClientResults.Parts() {
        @Override
        public void fail(ErrorInfo error) {
          told.add("fail " + error.describe());
        }

        @Override
        public void clientBarrier(TaskId task, long id) {
          told.add("clientBarrier " + task + " " + id);
        }
      };
  private TaskSetup sink;

  private ClientResults results(JobSetup.Checkpointing checkpointing) {
    JobSetup setup = JobSetups.setup(checkpointing, null, JobSetups.plan(1), List.of(), false);
    JobState state = JobState.initial(setup);
    sink =
        state.deployment().setups().values().stream()
            .filter(s -> setup.plan().vertex(s.task().operator()).tail().kind() == Kind.SINK)
            .findFirst()
            .orElseThrow();
    ClientResults results = new ClientResults(setup, out, parts);
    results.addClientChannel(sink);
    return results;
  }

  private JobInput.ResultsDelivered deliver(long seq, Object item) {
    return new JobInput.ResultsDelivered(
        sink.task(),
        new Deliver(
            sink.clientChannel(),
            seq,
            item instanceof CheckpointBarrier b
                ? b
                : new RecordBatch(new Object[] {item}, new long[] {0}, 1)));
  }

  @Test
  void withoutCheckpointsResultsArePublishedAsTheyArrive() {
    ClientResults results = results(null);
    results.onResults(deliver(0, 7L));
    assertThat(results.collected("out")).containsExactly(7L);
  }

  @Test
  void withCheckpointsResultsArePublishedOnlyByTheCommitOfACheckpointThatCoversThem() {
    ClientResults results = results(CHECKPOINTS);
    results.onResults(deliver(0, 7L));
    results.onResults(deliver(1, new CheckpointBarrier(1)));
    results.onResults(deliver(2, 8L));
    assertThat(told).containsExactly("clientBarrier " + sink.task() + " 1");
    assertThat(results.collected("out")).isEmpty();
    results.committed(1);
    assertThat(results.collected("out")).containsExactly(7L);
    results.rolledBack(); // 8 comes again from the restored tasks
    results.ended();
    assertThat(results.collected("out")).containsExactly(7L);
  }

  @Test
  void aResultOnAnUnknownChannelOrOutOfOrderFailsTheJob() {
    ClientResults results = results(null);
    results.onResults(
        new JobInput.ResultsDelivered(
            sink.task(), new Deliver(sink.clientChannel() + 99, 0, null)));
    assertThat(told).singleElement().asString().contains("unknown client channel");
    results.onResults(deliver(5, 7L));
    assertThat(told).hasSize(2);
    assertThat(results.collected("out")).isEmpty();
  }
}
