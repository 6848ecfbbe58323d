package io.koala.coordinator;

import io.koala.channel.InputChannel;
import io.koala.job.ErrorInfo;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.CheckpointBarrier;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.ProtocolViolationException;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.TaskSetup;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The results tasks send to the job's client, each over a flow-controlled channel: without
 * checkpoints they are published as they arrive; with checkpoints only once a checkpoint that
 * covers them is committed, or when the job ends ({@link OutputCommit}), so a rollback never
 * publishes a result twice.
 */
final class ClientResults {
  private final JobCore job;
  private final Map<Integer, InputChannel> channels = new HashMap<>();
  private final Map<TaskId, OperatorId> sinkOf = new HashMap<>();
  private final Map<String, List<Object>> collected = new HashMap<>();
  private final OutputCommit<Object> output = new OutputCommit<>();

  ClientResults(JobCore job) {
    this.job = job;
  }

  /** Task {@code s} will send results on its client channel. */
  void addClientChannel(TaskSetup s) {
    channels.put(
        s.clientChannel(),
        new InputChannel(s.clientChannel(), s.task(), 0, job.setup.channels().credits()));
    sinkOf.put(s.task(), job.plan.vertex(s.task().operator()).tail().id());
  }

  void onResults(JobInput.ResultsDelivered m) {
    Deliver d = m.deliver();
    InputChannel ch = channels.get(d.channel());
    if (ch == null || !ch.source().equals(m.from())) {
      job.lifecycle.fail(
          ErrorInfo.of(
              "coordinator",
              m.from(),
              null,
              new ProtocolViolationException("unknown client channel " + d.channel())));
      return;
    }
    try {
      ch.accept(d.seq(), d.item() == EndOfChannel.INSTANCE);
    } catch (ProtocolViolationException e) {
      job.lifecycle.fail(ErrorInfo.of(sinkOf.get(m.from()).name(), m.from(), null, e));
      return;
    }
    if (d.item() instanceof RecordBatch b) {
      List<Object> values = new ArrayList<>(b.size());
      for (int i = 0; i < b.size(); i++) {
        values.add(b.value(i));
      }
      String sink = sinkOf.get(m.from()).name();
      if (!job.checkpoints.on()) {
        collected.computeIfAbsent(sink, k -> new ArrayList<>()).addAll(values);
      } else {
        output.received(m.from(), sink, values); // published once a checkpoint covers them
      }
    } else if (d.item() instanceof CheckpointBarrier cb && job.checkpoints.on()) {
      output.cut(m.from(), cb.checkpointId());
      job.checkpoints.clientBarrier(m.from(), cb.checkpointId());
    }
    long grant = ch.consumed(d.item() == EndOfChannel.INSTANCE);
    if (grant >= 0) {
      job.tell(m.from(), new Credit(ch.id(), grant));
    }
  }

  void onGetCollected(JobInput.GetCollected m) {
    job.reply(m.replyTo(), new JobReply.Collected(collected(m.sink())));
  }

  /** What sink {@code sink} has published so far. */
  List<Object> collected(String sink) {
    return List.copyOf(collected.getOrDefault(sink, List.of()));
  }

  /** {@code task}'s output up to now is covered by checkpoint {@code checkpointId}. */
  void cut(TaskId task, long checkpointId) {
    output.cut(task, checkpointId);
  }

  /** Whether {@code task} sent results that no checkpoint has cut yet. */
  boolean uncut(TaskId task) {
    return output.uncut(task);
  }

  /** Checkpoint {@code checkpointId} committed: the results it covers are published. */
  void committed(long checkpointId) {
    publish(output.committed(checkpointId));
  }

  /** The job finished: every result is final. */
  void ended() {
    publish(output.ended());
  }

  /** A rollback: unpublished results will be produced again, on new channels. */
  void rolledBack() {
    output.rolledBack();
    channels.clear();
  }

  private void publish(Map<String, List<Object>> results) {
    results.forEach(
        (sink, values) -> collected.computeIfAbsent(sink, k -> new ArrayList<>()).addAll(values));
  }
}
