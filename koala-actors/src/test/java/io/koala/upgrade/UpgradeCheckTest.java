package io.koala.upgrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.function.DataflowDefinitionException;
import io.koala.function.KeyValue;
import io.koala.plan.ExecutionPlan;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The compatibility check of a restore into another version of a dataflow: each refused change with
 * the message a user sees, and the changes it lets through.
 */
class UpgradeCheckTest {

  /** What a version of the dataflow may change. */
  private static final class Version {
    int buckets = 128;
    int sourcePartitions = 2;
    int countParallelism = 2;
    boolean sourceNamedOrders = true;
    boolean stageBeforeKeyBy;
    boolean keysAsText;
    boolean declareKeyType = true;
    boolean recount = true;
    boolean countKeepsState = true;
    String sinkName = "totals";
    String countName = "count";
    String countUid;
  }

  private static PlanSignature signature(Consumer<Version> change) {
    Version v = new Version();
    change.accept(v);
    DataflowBuilder b =
        Dataflow.builder("orders").parallelism(v.countParallelism).buckets(v.buckets);
    Stage<Long> in =
        b.source(
            SourceSpec.collection(v.sourceNamedOrders ? "orders" : "orders-v2", List.of(1L, 2L, 3L))
                .partitions(v.sourcePartitions));
    if (v.stageBeforeKeyBy) {
      in = in.map("normalize", x -> x + 0);
    }
    Stage<KeyValue<Long, Long>> counts;
    if (!v.countKeepsState) {
      counts = in.map("count", x -> new KeyValue<>(x, 1L));
    } else if (v.keysAsText) {
      counts =
          in.keyBy(x -> Long.toString(x), String.class)
              .count("count")
              .map("back", kv -> new KeyValue<>(Long.parseLong(kv.key()), kv.value()));
    } else if (v.declareKeyType) {
      counts = in.keyBy(x -> x, Long.class).count(v.countName);
      if (v.countUid != null) {
        counts.uid(v.countUid);
      }
    } else {
      counts = in.keyBy(x -> x).count("count");
    }
    counts.sink(SinkSpec.discarding(v.sinkName));
    if (v.recount) {
      counts.keyBy(KeyValue::key).count("recount").sink(SinkSpec.discarding("recounts"));
    }
    return PlanSignature.of(ExecutionPlan.of(b.build().plan()));
  }

  private static final PlanSignature V1 = signature(v -> {});

  private static List<String> problems(Consumer<Version> change, String... droppable) {
    return UpgradeCheck.problems(V1, signature(change), Set.of(droppable));
  }

  @Test
  void theSameDataflowHasTheSameSignature() {
    assertThat(signature(v -> {})).isEqualTo(V1);
    assertThat(problems(v -> {})).isEmpty();
  }

  @Test
  void addedAndRemovedStatelessStagesNewParallelismChangedSinksAndDroppedStateAreAllowed() {
    List<String> problems =
        problems(
            v -> {
              v.stageBeforeKeyBy = true;
              v.countParallelism = 5;
              v.sinkName = "totals-v2";
              v.recount = false;
            },
            "recount");
    assertThat(problems).isEmpty();
    assertThat(signature(v -> v.countParallelism = 5)).isNotEqualTo(V1);
  }

  @Test
  void aMissingStatefulOperatorIsRefusedUnlessItsStateMayBeDropped() {
    assertThat(problems(v -> v.recount = false))
        .containsExactly(
            "operator 'recount' is not in the new dataflow: its keyed state in the checkpoint would"
                + " be lost; allow dropping it with SubmitOptions.allowDroppingState(\"recount\")");
    assertThat(problems(v -> v.recount = false, "recount")).isEmpty();
  }

  @Test
  void aRenamedOperatorKeepsItsStateByItsUid() {
    assertThat(
            problems(
                v -> {
                  v.countName = "count-per-key";
                  v.countUid = "count";
                }))
        .isEmpty();
    assertThat(problems(v -> v.countName = "count-per-key"))
        .containsExactly(
            "operator 'count' is not in the new dataflow: its keyed state in the checkpoint would"
                + " be lost; allow dropping it with SubmitOptions.allowDroppingState(\"count\")");
  }

  @Test
  void twoOperatorsCannotShareAUid() {
    assertThatThrownBy(() -> signature(v -> v.countUid = "recount"))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessage(
            "operators 'count' and 'recount' have the same uid 'recount' (an operator's uid is its"
                + " name unless Stage.uid sets it); uids must be unique");
  }

  @Test
  void anOperatorThatNoLongerKeepsKeyedStateIsRefused() {
    assertThat(problems(v -> v.countKeepsState = false))
        .containsExactly(
            "operator 'count' no longer keeps keyed state: its keyed state in the checkpoint would"
                + " be lost; allow dropping it with SubmitOptions.allowDroppingState(\"count\")");
  }

  @Test
  void aChangedKeyClassIsRefused() {
    assertThat(problems(v -> v.keysAsText = true))
        .containsExactly(
            "operator 'count': its keys were java.lang.Long and are now java.lang.String; state"
                + " kept under keys of one class is not found under keys of another");
  }

  @Test
  void aKeyClassDeclaredOnOneSideOnlyIsNotJudged() {
    assertThat(problems(v -> v.declareKeyType = false)).isEmpty();
  }

  @Test
  void changedBucketsAreRefusedWhileKeyedStateIsKept() {
    assertThat(problems(v -> v.buckets = 256))
        .containsExactly(
            "the dataflow's buckets changed from 128 to 256 (DataflowBuilder.buckets): the keyed"
                + " state of 'count', 'recount' is split by bucket, so the number of buckets must"
                + " stay 128");
  }

  @Test
  void aSourceKeepsItsParallelismAndItsPositionsAreNotDroppedSilently() {
    assertThat(problems(v -> v.sourcePartitions = 1))
        .containsExactly(
            "source 'orders': its parallelism changed from 2 to 1; a source's read positions are"
                + " kept per task, so a restored source keeps its parallelism");
    assertThat(problems(v -> v.sourceNamedOrders = false))
        .containsExactly(
            "source 'orders' is not in the new dataflow: its read positions in the checkpoint"
                + " would be lost; allow dropping it with"
                + " SubmitOptions.allowDroppingState(\"orders\")");
  }

  @Test
  void droppingStateTheCheckpointHasNotOrTheNewDataflowKeepsIsRefused() {
    assertThat(problems(v -> {}, "recuont", "count"))
        .containsExactly(
            "operator 'count' is allowed to drop its state, but the new dataflow keeps it: its"
                + " state is restored; remove it from allowDroppingState",
            "allowDroppingState names 'recuont', of which the checkpoint holds no state"
                + " (operators with state: 'orders', 'count', 'recount')");
  }

  @Test
  void everyProblemIsListedAtOnce() {
    assertThat(
            problems(
                v -> {
                  v.recount = false;
                  v.keysAsText = true;
                  v.sourcePartitions = 1;
                }))
        .hasSize(3);
  }
}
