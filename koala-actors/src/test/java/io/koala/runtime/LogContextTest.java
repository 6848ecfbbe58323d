package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Structured logs: what a job's coordinator and tasks log carries the job, and for a task its
 * operator, task and attempt, as MDC fields (a JSON encoder writes them as fields).
 */
class LogContextTest {

  @Test
  void aKeyedFailureLogsTheKey() {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    root.addAppender(appender);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(1))) {
      DataflowBuilder b = Dataflow.builder("keyed-failure");
      b.source(SourceSpec.generator("n", (i, s) -> i % 10).count(1_000))
          .keyBy(x -> x)
          .process("explode", FailurePropagationTest.ExplodeOnKey::new)
          .sink(SinkSpec.discarding("out"));
      JobHandle job = runtime.submit(b.build());
      assertThatThrownBy(() -> job.await(Duration.ofSeconds(30)))
          .isInstanceOf(JobFailedException.class);
      ILoggingEvent failure =
          List.copyOf(appender.list).stream()
              .filter(e -> e.getLoggerName().contains("TaskActor"))
              .filter(e -> e.getFormattedMessage().contains("boom"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no task error in " + appender.list));
      assertThat(failure.getMDCPropertyMap())
          .containsEntry("koala.key", "7")
          .containsEntry("koala.operator", "explode");
    } finally {
      root.detachAppender(appender);
    }
  }

  @Test
  void aFailingTaskAndItsCoordinatorLogWithTheirContext() {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    root.addAppender(appender);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load().withWorkers(1))) {
      DataflowBuilder b = Dataflow.builder("logged");
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
          .isInstanceOf(JobFailedException.class);

      List<ILoggingEvent> events = List.copyOf(appender.list);
      ILoggingEvent task =
          events.stream()
              .filter(e -> e.getFormattedMessage().contains("cannot parse record 500"))
              .filter(e -> e.getLoggerName().contains("TaskActor"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no task error in " + events));
      assertThat(task.getMDCPropertyMap())
          .containsEntry("koala.job", job.id())
          .containsEntry("koala.operator", "n")
          .containsEntry("koala.attempt", "0")
          .containsKey("koala.task");
      ILoggingEvent coordinator =
          events.stream()
              .filter(e -> e.getLoggerName().endsWith("JobCoordinator"))
              .filter(e -> e.getFormattedMessage().contains("failed"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no coordinator error in " + events));
      assertThat(coordinator.getMDCPropertyMap()).containsEntry("koala.job", job.id());
    } finally {
      root.detachAppender(appender);
    }
  }
}
