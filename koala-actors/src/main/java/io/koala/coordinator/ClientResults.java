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
  /** What the results ask of the job's other parts. */
  interface Parts {
    /** The job fails with {@code error} (a task broke the client channel's protocol). */
    void fail(ErrorInfo error);

    /**
     * {@code task}'s barrier of checkpoint {@code id} reached the client ({@link JobCheckpoints}).
     */
    void clientBarrier(TaskId task, long id);
  }

  private final JobSetup setup;
  private final Outbox out;
  private final Parts parts;
  private final boolean checkpointsOn;
  private final Map<Integer, InputChannel> channels = new HashMap<>();
  private final Map<TaskId, OperatorId> sinkOf = new HashMap<>();
  private final Map<String, List<Object>> collected = new HashMap<>();
  private final OutputCommit<Object> output = new OutputCommit<>();

  ClientResults(JobSetup setup, Outbox out, Parts parts) {
    this.setup = setup;
    this.out = out;
    this.parts = parts;
    this.checkpointsOn = setup.checkpointing() != null;
  }

  /** An input about the results sent to the job's client. */
  void on(JobInput.Results input) {
    if (input instanceof JobInput.ResultsDelivered m) {
      onResults(m);
    } else if (input instanceof JobInput.GetCollected m) {
      onGetCollected(m);
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  /** Task {@code s} will send results on its client channel. */
  void addClientChannel(TaskSetup s) {
    channels.put(
        s.clientChannel(),
        new InputChannel(s.clientChannel(), s.task(), 0, setup.channels().credits()));
    sinkOf.put(s.task(), setup.plan().vertex(s.task().operator()).tail().id());
  }

  void onResults(JobInput.ResultsDelivered m) {
    Deliver d = m.deliver();
    InputChannel ch = channels.get(d.channel());
    if (ch == null || !ch.source().equals(m.from())) {
      parts.fail(
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
      parts.fail(ErrorInfo.of(sinkOf.get(m.from()).name(), m.from(), null, e));
      return;
    }
    if (d.item() instanceof RecordBatch b) {
      List<Object> values = new ArrayList<>(b.size());
      for (int i = 0; i < b.size(); i++) {
        values.add(b.value(i));
      }
      String sink = sinkOf.get(m.from()).name();
      if (!checkpointsOn) {
        collected.computeIfAbsent(sink, k -> new ArrayList<>()).addAll(values);
      } else {
        output.received(m.from(), sink, values); // published once a checkpoint covers them
      }
    } else if (d.item() instanceof CheckpointBarrier cb && checkpointsOn) {
      output.cut(m.from(), cb.checkpointId());
      parts.clientBarrier(m.from(), cb.checkpointId());
    }
    long grant = ch.consumed(d.item() == EndOfChannel.INSTANCE);
    if (grant >= 0) {
      out.tell(m.from(), new Credit(ch.id(), grant));
    }
  }

  void onGetCollected(JobInput.GetCollected m) {
    out.reply(m.replyTo(), new JobReply.Collected(collected(m.sink())));
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
