package io.koala.coordinator;

import io.koala.plan.TaskId;
import io.koala.protocol.TaskMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.slf4j.Logger;

/**
 * Where the job core's parts put what they decided, in order: the {@link JobEffect}s its host
 * carries out once the input is handled. It knows the time of that input, the job's name and log,
 * and where the tasks of the attempt are reached. An answer to a requester inside the core (the
 * autoscaler) goes back to it at once instead of leaving.
 */
final class Outbox {
  private final String jobId;
  private final Logger log;
  private final TaskRoster roster;
  private final List<JobEffect> effects = new ArrayList<>();
  private long now;
  private BiConsumer<Autoscaling.Pending, JobReply.Outcome> autoscalerOutcomes;

  Outbox(String jobId, Logger log, TaskRoster roster, long nowMillis) {
    this.jobId = jobId;
    this.log = log;
    this.roster = roster;
    this.now = nowMillis;
  }

  /** Where the outcomes of the autoscaler's own requests go (set once, by the core). */
  void autoscalerOutcomes(BiConsumer<Autoscaling.Pending, JobReply.Outcome> outcomes) {
    if (autoscalerOutcomes != null) {
      throw new IllegalStateException("the autoscaler's outcomes already have a destination");
    }
    this.autoscalerOutcomes = outcomes;
  }

  String jobId() {
    return jobId;
  }

  Logger log() {
    return log;
  }

  /** The time of the input being handled. */
  long now() {
    return now;
  }

  /** An input arrives at {@code nowMillis}. */
  void at(long nowMillis) {
    now = nowMillis;
  }

  void emit(JobEffect effect) {
    effects.add(effect);
  }

  <T> void reply(ReplyTo<T> to, T message) {
    if (to instanceof Autoscaling.Pending p) {
      autoscalerOutcomes.accept(p, (JobReply.Outcome) message);
      return;
    }
    emit(new JobEffect.Reply<>(to, message));
  }

  /** Sends {@code message} to {@code task} if it is deployed. */
  void tell(TaskId task, TaskMessage message) {
    TaskAddress a = roster.address(task);
    if (a != null) {
      emit(new JobEffect.ToTask(a, message));
    }
  }

  void startTimer(Object key, JobInput input, Duration delay) {
    emit(new JobEffect.StartTimer(key, input, delay, false));
  }

  void cancelTimer(Object key) {
    emit(new JobEffect.CancelTimer(key));
  }

  /** What was decided since the last call, in order; the outbox is empty after. */
  List<JobEffect> drain() {
    List<JobEffect> out = List.copyOf(effects);
    effects.clear();
    return out;
  }
}
