package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.Collector;
import io.koala.function.KeyedProcessFunction;
import io.koala.job.JobStatus;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A throwing user function fails its task and the job reports it, naming operator and key. */
class FailurePropagationTest {
  static KoalaRuntime runtime;

  @BeforeAll
  static void start() {
    runtime = KoalaRuntime.embedded(KoalaConfig.load());
  }

  @AfterAll
  static void stop() {
    runtime.close();
  }

  @Test
  void throwingMapFailsTheJobNamingTheOperator() {
    DataflowBuilder b = Dataflow.builder("bad-map");
    b.source(SourceSpec.generator("n", (i, s) -> i).count(1_000))
        .map(
            "parse",
            (Long i) -> {
              if (i == 500) {
                throw new IllegalArgumentException("cannot parse record " + i);
              }
              return i;
            })
        .sink(SinkSpec.discarding("out"));
    JobHandle job = runtime.submit(b.build());
    assertThatThrownBy(() -> job.await(Duration.ofSeconds(30)))
        .isInstanceOf(JobFailedException.class)
        .hasMessageContaining("operator 'parse'")
        .hasMessageContaining("IllegalArgumentException")
        .hasMessageContaining("cannot parse record 500");
    assertThat(job.status()).isEqualTo(JobStatus.FAILED);
    JobFailedException e = catchFailure(job);
    assertThat(e.error().stackTrace()).contains("FailurePropagationTest");
  }

  static final class ExplodeOnKey extends KeyedProcessFunction<Long, Long, Long> {
    @Override
    public void process(Long value, Context<Long> ctx, Collector<Long> out) {
      if (ctx.currentKey() == 7L) {
        throw new IllegalStateException("boom");
      }
      out.collect(value);
    }
  }

  @Test
  void throwingKeyedFunctionNamesTheKey() {
    DataflowBuilder b = Dataflow.builder("bad-keyed").parallelism(2);
    b.source(SourceSpec.generator("n", (i, s) -> i % 10).partitions(2).count(1_000))
        .keyBy(x -> x)
        .process("explode", ExplodeOnKey::new)
        .sink(SinkSpec.discarding("out"));
    JobHandle job = runtime.submit(b.build());
    assertThatThrownBy(() -> job.await(Duration.ofSeconds(30)))
        .isInstanceOf(JobFailedException.class)
        .hasMessageContaining("operator 'explode'")
        .hasMessageContaining("on key 7")
        .hasMessageContaining("boom");
  }

  @Test
  void throwingKeySelectorNamesTheConsumer() {
    DataflowBuilder b = Dataflow.builder("bad-key");
    b.source(SourceSpec.generator("n", (i, s) -> i).count(100))
        .keyBy(
            (Long x) -> {
              if (x == 3) {
                throw new ArithmeticException("no key for 3");
              }
              return x;
            })
        .count("count")
        .sink(SinkSpec.discarding("out"));
    JobHandle job = runtime.submit(b.build());
    assertThatThrownBy(() -> job.await(Duration.ofSeconds(30)))
        .isInstanceOf(JobFailedException.class)
        .hasMessageContaining("count (key selector)")
        .hasMessageContaining("no key for 3");
  }

  /** Issue 48, N4: the null check sat outside the selector's wrapper and named the source. */
  @Test
  void aKeySelectorReturningNullNamesTheConsumerAndTheRecord() {
    DataflowBuilder b = Dataflow.builder("null-key");
    b.source(SourceSpec.generator("n", (i, s) -> i).count(1_000))
        .keyBy((Long x) -> x == 500L ? null : x % 10)
        .count("count")
        .sink(SinkSpec.discarding("out"));
    JobHandle job = runtime.submit(b.build());
    assertThatThrownBy(() -> job.await(Duration.ofSeconds(30)))
        .isInstanceOf(JobFailedException.class)
        .hasMessageContaining("operator 'count (key selector)'")
        .hasMessageContaining("the key selector returned null for record 500");
  }

  @Test
  void throwingOperatorFactoryFailsTheJob() {
    DataflowBuilder b = Dataflow.builder("bad-factory");
    b.source(SourceSpec.generator("n", (i, s) -> i).count(10))
        .<Long>transform(
            "broken",
            () -> {
              throw new IllegalStateException("factory is broken");
            })
        .sink(SinkSpec.discarding("out"));
    JobHandle job = runtime.submit(b.build());
    assertThatThrownBy(() -> job.await(Duration.ofSeconds(30)))
        .isInstanceOf(JobFailedException.class)
        .hasMessageContaining("factory is broken");
  }

  private static JobFailedException catchFailure(JobHandle job) {
    try {
      job.await(Duration.ofSeconds(1));
    } catch (JobFailedException e) {
      return e;
    }
    throw new AssertionError("job did not fail");
  }
}
