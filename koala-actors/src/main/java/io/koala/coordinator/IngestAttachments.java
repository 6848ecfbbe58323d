package io.koala.coordinator;

import io.koala.connector.IngestSource;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.TaskId;
import io.koala.protocol.IngestMessage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which service handle feeds each ingest source, and telling the source's tasks: those running when
 * a handle attaches, and every task of the source started afterwards (after a rollback, or on
 * another worker). The tasks then talk to the handle directly. A handle that attaches to a source
 * that already has one takes its place.
 */
final class IngestAttachments {
  private final ExecutionPlan plan;
  private final Outbox out;
  private final TaskRoster roster;
  private final CurrentStatus job;
  private final Map<String, Object> clients = new HashMap<>(); // source name -> handle address
  private long attachments;

  IngestAttachments(ExecutionPlan plan, Outbox out, TaskRoster roster, CurrentStatus job) {
    this.plan = plan;
    this.out = out;
    this.roster = roster;
    this.job = job;
  }

  /** An input about the handles feeding ingest sources. */
  void on(JobInput.Ingest input) {
    if (input instanceof JobInput.AttachIngest m) {
      onAttach(m);
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  void onAttach(JobInput.AttachIngest m) {
    ExecutionPlan.Vertex vertex = ingestVertex(m.source());
    if (vertex == null) {
      out.reply(
          m.replyTo(),
          new JobReply.IngestAttached(
              0, "job " + out.jobId() + " has no ingest source named '" + m.source() + "'"));
      return;
    }
    if (job.ended()) {
      out.reply(
          m.replyTo(),
          new JobReply.IngestAttached(
              0, "job " + out.jobId() + " has ended (" + job.status() + ")"));
      return;
    }
    clients.put(m.source(), m.client());
    out.reply(m.replyTo(), new JobReply.IngestAttached(vertex.parallelism(), null));
    attach(m.source(), roster.addresses(vertex.tasks()));
  }

  /** Tasks have been started: those of a source with a handle learn it. */
  void onStarted(List<TaskAddress> started) {
    for (Map.Entry<String, Object> c : clients.entrySet()) {
      List<TaskId> ids = ingestVertex(c.getKey()).tasks();
      attach(c.getKey(), started.stream().filter(t -> ids.contains(t.task())).toList());
    }
  }

  private void attach(String source, List<TaskAddress> tasks) {
    Object client = clients.get(source);
    for (TaskAddress t : tasks) {
      out.emit(new JobEffect.ToTask(t, new IngestMessage.Attach(++attachments, client)));
    }
  }

  private ExecutionPlan.Vertex ingestVertex(String source) {
    for (ExecutionPlan.Vertex v : plan.vertices()) {
      if (v.isSource()
          && v.head().source() instanceof IngestSource<?> s
          && s.name().equals(source)) {
        return v;
      }
    }
    return null;
  }
}
