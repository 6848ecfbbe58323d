package io.koala.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.koala.job.ErrorInfo;
import io.koala.job.HolderStoppedException;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.TaskSetup;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A task's failure is logged as an error, except one that is the consequence of another task's stop
 * (issue 48: after an injected crash, a task whose holder was the crashed one logged an ERROR while
 * the job rolled back, though the crash was the news), which is logged at INFO: the coordinator
 * reports the stop that matters, and a job cancelled stops holders before their owners hear of it,
 * which is no news at all (issue 42: `./koala demo` printed such a WARN at its end).
 */
class LogContextLevelTest {
  private static final TaskId TASK = new TaskId(new OperatorId("count"), 2);
  private static final TaskSetup SETUP =
      new TaskSetup(
          "job",
          TASK,
          3,
          8,
          List.of(),
          List.of(),
          List.of(),
          99,
          new ChannelSettings(16, 1 << 20, 5, 64));

  private static ILoggingEvent logged(Exception failure) {
    Logger logger = (Logger) LoggerFactory.getLogger("LogContextLevelTest");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      LogContext.failure(logger, SETUP, 1, ErrorInfo.of("count", TASK, null, failure));
    } finally {
      logger.detachAppender(appender);
    }
    assertThat(appender.list).hasSize(1);
    return appender.list.get(0);
  }

  @Test
  void aTasksOwnFailureIsAnError() {
    ILoggingEvent e = logged(new IllegalStateException("boom"));
    assertThat(e.getLevel()).isEqualTo(Level.ERROR);
    assertThat(e.getMDCPropertyMap()).containsEntry("koala.task", "count#2");
  }

  @Test
  void aFailureBecauseItsHolderStoppedIsInformation() {
    ILoggingEvent e =
        logged(new HolderStoppedException("task count#1, which holds state count#2 still needs"));
    assertThat(e.getLevel()).isEqualTo(Level.INFO);
    assertThat(e.getFormattedMessage()).contains("count#1, which holds state count#2");
  }
}
