package io.koala.task;

import io.koala.connector.Backlog;
import io.koala.connector.IngestSource;
import io.koala.connector.ReadResult;
import io.koala.connector.SourceOutput;
import io.koala.connector.SourceReader;
import io.koala.connector.SplitOutput;
import io.koala.protocol.IngestMessage;
import java.util.ArrayDeque;
import java.util.Map;

/**
 * The reader of an {@link IngestSource} task: one split, {@value #SPLIT}, whose position is how
 * many records of its stripe the task has emitted ({@link IngestMessage}). It takes the handle's
 * batches that follow on from what it has, buffers at most its window of them, tells the handle how
 * far it has read (which reopens the window) and which positions completed checkpoints hold (which
 * lets the handle forget those records). On each attachment, and whenever a batch does not follow
 * on (a restored task, a lost message), it says where it is, and the handle sends from there.
 */
final class IngestReader implements SourceReader<Object> {
  static final String SPLIT = "ingest";

  private final IngestSource<Object> source;
  private final TaskHost host;
  private final int task;
  private final int parallelism;
  private final ArrayDeque<Object> buffer = new ArrayDeque<>();
  private SplitOutput<Object> out;
  private long position; // records of the stripe emitted
  private long received; // records of the stripe taken into the buffer (position + buffered)
  private long end = -1; // records in the stripe once the handle completed; -1: not known
  private Object client; // null: no handle attached yet
  private long attachment;
  private long reported; // the position last sent in a Consumed

  IngestReader(IngestSource<Object> source, TaskHost host, int task, int parallelism) {
    this.source = source;
    this.host = host;
    this.task = task;
    this.parallelism = parallelism;
  }

  @Override
  public void start(Map<String, Long> restored, SourceOutput<Object> output) {
    for (String split : restored.keySet()) {
      if (!split.equals(SPLIT)) {
        throw new IllegalStateException(
            source + ": the checkpoint being restored has split '" + split + "', not an ingest's");
      }
    }
    position = restored.getOrDefault(SPLIT, 0L);
    received = position;
    reported = position;
    out = output.split(SPLIT);
  }

  /** A message of the handle, or the coordinator's attachment of one. */
  void onMessage(IngestMessage.ToTask m) {
    if (m instanceof IngestMessage.Attach a) {
      if (a.attachment() > attachment) {
        attachment = a.attachment();
        client = a.client();
        buffer.clear(); // the new handle sends on from the position
        received = position;
        hello();
      }
    } else if (m instanceof IngestMessage.Batch b) {
      if (b.attachment() != attachment) {
        return; // for an attachment this task has left
      }
      long skip = received - b.first();
      if (skip < 0) {
        hello(); // something before this batch went missing: resend from where this task is
        return;
      }
      int n = b.records().size();
      for (int i = (int) Math.min(skip, n); i < n; i++) {
        buffer.add(b.records().get(i));
        received++;
      }
    } else if (m instanceof IngestMessage.End e) {
      if (e.attachment() == attachment) {
        end = e.count();
      }
    }
  }

  private void hello() {
    host.send(
        client,
        new IngestMessage.Hello(
            task,
            parallelism,
            attachment,
            host.externalAddress(),
            position,
            source.window(),
            host.checkpointing()));
  }

  @Override
  public ReadResult read(int max) {
    int n = Math.min(max, buffer.size());
    for (int i = 0; i < n; i++) {
      Object value = buffer.poll();
      out.emit(value, source.timestamp(value));
    }
    position += n;
    if (client != null && (buffer.isEmpty() || position - reported >= source.window() / 2)) {
      reportConsumed();
    }
    if (!buffer.isEmpty()) {
      return ReadResult.MORE;
    }
    if (end >= 0 && position >= end) {
      out.end();
      return ReadResult.END;
    }
    return ReadResult.waitUntil(Long.MAX_VALUE); // a batch's arrival polls again
  }

  private void reportConsumed() {
    if (position != reported) {
      reported = position;
      host.send(client, new IngestMessage.Consumed(task, attachment, position));
    }
  }

  /** Housekeeping, about once a second: says again how far it has read (a lost report is fine). */
  void tick() {
    if (client != null) {
      host.send(client, new IngestMessage.Consumed(task, attachment, position));
    }
  }

  @Override
  public Map<String, Long> positions() {
    return Map.of(SPLIT, position);
  }

  @Override
  public void checkpointCompleted(long checkpointId, Map<String, Long> positions) {
    Long p = positions.get(SPLIT);
    if (client != null && p != null) {
      host.send(client, new IngestMessage.Committed(task, attachment, p));
    }
  }

  @Override
  public Backlog backlog(long nowMillis) {
    return new Backlog(buffer.size(), 0);
  }
}
