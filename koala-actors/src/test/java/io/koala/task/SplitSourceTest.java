package io.koala.task;

import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.koala.connector.ReadResult;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceContext;
import io.koala.connector.SourceOutput;
import io.koala.connector.SourceReader;
import io.koala.connector.SourceSpec;
import io.koala.connector.SplitOutput;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.CheckpointMessage;
import io.koala.task.FakeServices.Task;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A source of the general SPI (not a log): splits found while it runs, positions in checkpoints,
 * the completed checkpoint's positions handed back, and a restore that reads on from them.
 */
class SplitSourceTest {
  private static final ChannelSettings SETTINGS = new ChannelSettings(100, 1 << 20, 5, 8);

  /** Topics held in memory: split → its records; a split added later is found by the reader. */
  static final class Topics implements SourceSpec<String> {
    final Map<String, List<String>> splits = new TreeMap<>();
    final List<Map<String, Long>> completed = new ArrayList<>();
    final List<Map<String, Long>> started = new ArrayList<>();

    @Override
    public String name() {
      return "topics";
    }

    @Override
    public SourceReader<String> createReader(SourceContext ctx) {
      return new SourceReader<>() {
        private final Map<String, Long> positions = new LinkedHashMap<>();
        private final Map<String, SplitOutput<String>> outputs = new LinkedHashMap<>();
        private SourceOutput<String> output;

        @Override
        public void start(Map<String, Long> restored, SourceOutput<String> output) {
          this.output = output;
          started.add(Map.copyOf(restored));
          positions.putAll(restored);
        }

        @Override
        public ReadResult read(int max) {
          for (String split : splits.keySet()) { // discovery: every split known now
            outputs.computeIfAbsent(split, output::split);
            positions.putIfAbsent(split, 0L);
          }
          for (Map.Entry<String, SplitOutput<String>> e : outputs.entrySet()) {
            List<String> records = splits.get(e.getKey());
            long p = positions.get(e.getKey());
            for (int i = 0; i < max && p < records.size(); i++, p++) {
              e.getValue().emit(records.get((int) p), p);
            }
            positions.put(e.getKey(), p);
          }
          return ReadResult.waitUntil(ctx.currentTimeMillis() + 100);
        }

        @Override
        public Map<String, Long> positions() {
          return Map.copyOf(positions);
        }

        @Override
        public void checkpointCompleted(long checkpointId, Map<String, Long> positions) {
          completed.add(positions);
        }
      };
    }
  }

  private static Dataflow wordCount(Topics topics) {
    DataflowBuilder b = Dataflow.builder("wc").parallelism(1);
    b.source(topics).keyBy((String w) -> w).count("count").sink(SinkSpec.collecting("out"));
    return b.build();
  }

  @Test
  void splitsFoundWhileRunningAreCheckpointedAndARestoreReadsOnFromTheirPositions() {
    Topics topics = new Topics();
    topics.splits.put("a-0", new ArrayList<>(List.of("x", "y")));
    topics.splits.put("a-1", new ArrayList<>(List.of("z")));
    FakeServices services = new FakeServices();
    services.checkpointing = true;
    Task src = services.task(wordCount(topics), "topics", 0, SETTINGS, null);
    src.engine().start(0);
    assertThat(topics.started).containsExactly(Map.of());
    src.engine().onTimer(TaskTimer.POLL);
    topics.splits.put("b-0", new ArrayList<>(List.of("w"))); // a split appears
    topics.splits.get("a-0").add("v");
    src.engine().onTimer(TaskTimer.POLL);
    src.engine().onCheckpoint(new CheckpointMessage.TriggerCheckpoint(1));

    TaskCheckpoint cp = TaskCheckpoint.decode(services.snapshots.get(0).metadata());
    assertThat(cp.positions())
        .containsExactly(entry("a-0", 3L), entry("a-1", 1L), entry("b-0", 1L));
    assertThat(services.records(taskId("count", 0)))
        .containsExactlyInAnyOrder("x", "y", "z", "w", "v");
    assertThat(topics.completed).isEmpty();
    src.engine().onCheckpoint(new CheckpointMessage.CheckpointCommitted(1, 1));
    assertThat(topics.completed).containsExactly(cp.positions());

    // a crash after checkpoint 1: a new task restored from it reads only what came after
    topics.splits.get("b-0").add("u");
    FakeServices again = new FakeServices();
    again.checkpointing = true;
    Task restored = again.task(wordCount(topics), "topics", 0, SETTINGS, null);
    restored.engine().restore(cp);
    restored.engine().start(0);
    assertThat(topics.started).last().isEqualTo(cp.positions());
    restored.engine().onTimer(TaskTimer.POLL);
    restored.engine().onCheckpoint(new CheckpointMessage.TriggerCheckpoint(2));
    assertThat(again.records(taskId("count", 0))).containsExactly("u");
  }
}
