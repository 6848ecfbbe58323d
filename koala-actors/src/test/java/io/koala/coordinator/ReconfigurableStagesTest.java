package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which stages an epoch can reconfigure, and the plans of those without buckets: only their tasks
 * change.
 */
class ReconfigurableStagesTest {

  /**
   * source "n" (2 tasks) feeding a map "fanned" (2 tasks, a forward edge: n has two consumers) and
   * a map "spread" (3 tasks, a rebalance) → keyBy → count → sink "out" (4 tasks, a rebalance); a
   * generator source "m" and an ingest source "pushed", each keyed into a count of its own.
   */
  static ExecutionPlan plan() {
    DataflowBuilder b = Dataflow.builder("stages").parallelism(2);
    var n = b.source(SourceSpec.generator("n", (i, seed) -> i).partitions(2).count(3));
    n.map("fanned", (Long x) -> x).sink(SinkSpec.collecting("fanned-out"));
    n.map("spread", (Long x) -> x)
        .parallelism(3)
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.collecting("out"))
        .parallelism(4);
    b.source(SourceSpec.generator("m", (i, seed) -> i).partitions(4).count(3))
        .keyBy(x -> x)
        .count("m-count")
        .sink(SinkSpec.discarding("m-out"));
    b.source(SourceSpec.<Long>ingest("pushed", 16))
        .keyBy(x -> x)
        .count("pushed-count")
        .sink(SinkSpec.discarding("pushed-out"));
    return ExecutionPlan.of(b.build().plan());
  }

  static ExecutionPlan.Vertex vertex(String name) {
    return plan().vertex(new OperatorId(name));
  }

  @Test
  void keyedOperatorsAndRoundRobinStagesAreReconfigurable() {
    for (String name : List.of("spread", "count", "out", "m")) {
      assertThat(vertex(name).reconfigurable()).as(name).isTrue();
    }
  }

  @Test
  void anIngestSourceAndForwardEdgesAreRefusedSayingWhy() {
    assertThatThrownBy(() -> vertex("pushed").checkReconfigurable())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "operator 'pushed' is a source whose splits cannot move between its tasks");
    assertThatThrownBy(() -> vertex("n").checkReconfigurable())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("operator 'n' is a source with a forward edge to 'fanned'");
    assertThatThrownBy(() -> vertex("fanned").checkReconfigurable())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("operator 'fanned' reads a forward edge from 'n'")
        .hasMessageContaining("Give 'fanned' a parallelism other than 'n''s");
    assertThat(vertex("fanned").reconfigurable()).isFalse();
  }

  @Test
  void withoutBucketsOnlyTheTasksChange() {
    ReconfigurationPlan out = ReconfigurationPlan.rescale(null, new int[] {0, 1, 2}, 5, 2, null);
    assertThat(out.tasksAfter()).containsExactly(0, 1, 2, 3, 4);
    assertThat(out.added()).containsExactly(3, 4);
    assertThat(out.moves()).isEmpty();
    assertThat(out.before()).isNull();
    assertThat(out.after()).isNull();
    assertThat(out.routingAfter()).isEmpty();
    assertThat(out.isNoop()).isFalse();

    ReconfigurationPlan in = ReconfigurationPlan.rescale(null, new int[] {0, 1, 2}, 1, 2, null);
    assertThat(in.tasksAfter()).containsExactly(0);
    assertThat(in.removed()).containsExactly(1, 2);

    ReconfigurationPlan moved = ReconfigurationPlan.migrate(null, new int[] {0, 1}, 0, 4);
    assertThat(moved.tasksAfter()).containsExactly(1, 5);
    assertThat(moved.removed()).containsExactly(0);
    assertThat(moved.moves()).isEmpty();

    assertThat(ReconfigurationPlan.rescale(null, new int[] {0, 1}, 2, 1, null).isNoop()).isTrue();
    assertThatThrownBy(() -> ReconfigurationPlan.of(null, new int[] {0}, new int[0], null))
        .hasMessage("an operator needs at least one task");
  }
}
