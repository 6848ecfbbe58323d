package io.koala.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationReport;
import io.koala.runtime.JobHandle;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Three nodes, each worker in its own ActorSystem, run a job that moves between them. */
class KoalaNodesIT {
  @RegisterExtension static final KoalaNodes nodes = KoalaNodes.start(3);

  private static final int RECORDS = 12_000;
  private static final int KEYS = 60;

  static Dataflow wordCount() {
    DataflowBuilder b = Dataflow.builder("nodes-count").parallelism(2);
    b.source(
            SourceSpec.generator("words", (i, seed) -> "w" + (i % KEYS))
                .rate(RateSchedule.constant(4_000))
                .count(RECORDS))
        .keyBy(w -> w)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  @Test
  void threeNodesRunAJobWhileItMovesBetweenThem() {
    assertThat(nodes.size()).isEqualTo(3);
    assertThat(nodes.runtime().config().separateSystems()).isTrue();
    JobHandle job = nodes.submit(wordCount());
    ReconfigurationReport out = job.rescale("count", 4).toCompletableFuture().join();
    assertThat(out.tasksAfter()).hasSize(4);
    // a worker index that only a third node has
    job.migrate("count", 0, 2).toCompletableFuture().join();
    assertThat(job.await(Duration.ofMinutes(1))).isEqualTo(JobStatus.FINISHED);
    List<KeyValue<String, Long>> counts = job.collected("counts");
    Map<String, Long> last = new TreeMap<>();
    counts.forEach(kv -> last.merge(kv.key(), kv.value(), Math::max));
    assertThat(counts).hasSize(RECORDS);
    assertThat(last).hasSize(KEYS).allSatisfy((w, n) -> assertThat(n).isEqualTo(RECORDS / KEYS));
  }

  @Test
  void jobsLeftRunningByATestAreCancelledAfterIt() {
    JobHandle job = nodes.submit(wordCount());
    assertThat(job.status().isTerminal()).isFalse();
    nodes.afterEach(null); // what JUnit calls after each test
    // unless cancelled, the job would finish after three seconds
    assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.CANCELLED);
  }
}
