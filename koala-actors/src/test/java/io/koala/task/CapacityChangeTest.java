package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.DataflowDefinitionException;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Deliver;
import io.koala.store.InMemoryStateStore;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An emulated capacity that grows at a time after the job's start (an experiment's control run):
 * before it, a second batch waits for the first's records to be paid for at the capacity before;
 * after it, at the capacity after.
 */
class CapacityChangeTest {

  static Dataflow counting(double before, Duration after, double then) {
    DataflowBuilder b = Dataflow.builder("capped").parallelism(1);
    b.source(SourceSpec.collection("words", List.of("unused")))
        .keyBy((String w) -> w)
        .count("count")
        .capacity(before, after, then)
        .sink(SinkSpec.collecting("out"));
    return b.build();
  }

  static Object[] words(int n) {
    Object[] out = new Object[n];
    for (int i = 0; i < n; i++) {
      out[i] = "w" + (i % 10);
    }
    return out;
  }

  @Test
  void theCapacityGrowsAtItsTimeAfterTheJobsStart() {
    FakeServices host = new FakeServices();
    ChannelSettings settings = new ChannelSettings(1_000, 1 << 20, 5, 100);
    try (InMemoryStateStore store = new InMemoryStateStore()) {
      FakeServices.Task t =
          host.task(counting(1_000, Duration.ofSeconds(2), 100_000), "count", 0, settings, store);
      host.nowMillis = 10_000;
      t.engine().start(10_000);
      int channel = t.inputFrom(taskId("words", 0));
      t.engine().onDeliver(new Deliver(channel, 0, batch(words(200))));
      t.engine().onDeliver(new Deliver(channel, 1, batch(words(200))));
      FakeServices.Scheduled wait = host.takeTimer(TaskTimer.CAPACITY);
      assertThat(wait).as("the second batch waits at 1,000 records/s").isNotNull();
      // 200 records less the 50 tokens of the burst: 150 ms at 1,000 records/s
      assertThat(wait.delayMillis()).isBetween(140L, 160L);

      host.nowMillis = 12_000; // 2 s after the start: 100,000 records/s from now on
      t.engine().onDeliver(new Deliver(channel, 2, batch(words(200))));
      host.elapse(3); // 3 ms pay for 300 records at the capacity after
      t.engine().onTimer(TaskTimer.CAPACITY);
      assertThat(t.engine().metrics().recordsIn()).isEqualTo(600);
    }
  }

  @Test
  void aChangeNeedsAPositiveCapacityAndATimeAfterTheStart() {
    assertThatThrownBy(() -> counting(1_000, Duration.ofSeconds(-1), 2_000))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("'count'");
    assertThatThrownBy(() -> counting(1_000, Duration.ofSeconds(1), 0))
        .isInstanceOf(DataflowDefinitionException.class)
        .hasMessageContaining("capacity must be positive");
  }
}
