package io.koala.runtime;

import io.koala.KoalaException;
import io.koala.connector.IngestSource;
import io.koala.runtime.internal.IngestClient;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.apache.pekko.Done;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * Pushes records into a running job's {@link IngestSource}, from any thread: {@code
 * JobHandle.ingest(source)}. Records are numbered 1, 2, 3, ... in the order they are accepted.
 *
 * <p>Backpressure: the handle holds at most the source's capacity of records the job may still
 * need; when it is full, {@link #offer} completes later, {@link #put} blocks and {@link #tryOffer}
 * refuses. Offers start being accepted once every task of the source has started.
 *
 * <p>Guarantees. While this handle lives, a failure inside the job (a task crash, a lost worker)
 * loses and duplicates nothing: a task rolled back to a checkpoint gets again every record after
 * it, from the handle, and the job's state and exactly-once sinks see each record once; a live
 * rescale or migration downstream changes nothing for the handle. {@link #committed()} says how far
 * completed checkpoints hold the input. If the service itself goes down, records accepted after
 * {@link #committed()} are lost: a service that keeps its own log of what it offered replays it,
 * after the job was restored from its checkpoint, from {@link #started()}'s position + 1, in the
 * same order; records the job already has are then skipped, so the replay too is exactly-once.
 * Without checkpoints a crash fails the job, and {@link #committed()} is how far the source's tasks
 * have read.
 */
public final class Ingest<T> {
  private final IngestClient client;
  private final String name;

  Ingest(IngestClient client, String name) {
    this.client = client;
    this.name = name;
  }

  /**
   * Offers {@code value}: completes with its number once the handle accepted it (at once when there
   * is room); exceptionally with a {@link KoalaException} if the job ended first, or with an {@link
   * IllegalStateException} if more offers than the source's capacity are already waiting or the
   * input was {@link #complete}d. Offers are accepted in the order they were made.
   */
  public CompletionStage<Long> offer(T value) {
    return client.offer(value);
  }

  /**
   * Offers {@code value}, waiting for room.
   *
   * @return its number
   * @throws KoalaException if the job ended first
   * @throws InterruptedException if interrupted while waiting (the offer may still be accepted)
   */
  public long put(T value) throws InterruptedException {
    try {
      return client.offer(value).toCompletableFuture().get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new KoalaException("ingest source '" + name + "': " + e.getCause(), e.getCause());
    }
  }

  /**
   * Accepts {@code value} only if there is room now and no offer waits.
   *
   * @return its number, or -1 when it was not accepted
   * @throws KoalaException if the job has ended
   */
  public long tryOffer(T value) {
    return client.tryOffer(value);
  }

  /**
   * No more records: once the source's tasks have read every record (waiting offers included), the
   * source ends, and a job whose every source ended finishes.
   */
  public void complete() {
    client.complete();
  }

  /** The number of the last record accepted. */
  public long last() {
    return client.last();
  }

  /**
   * Every record up to this number is in the job for good: a completed checkpoint holds it (without
   * checkpoints: the source's tasks have read it).
   */
  public long committed() {
    return client.committed();
  }

  /**
   * Completes once every task of the source has started, with the number of the last record the job
   * already has (0 for a new job; after a restore, where to replay a service's own log from, plus
   * one).
   */
  public CompletionStage<Long> started() {
    return client.started();
  }

  /**
   * A Pekko Streams sink into this handle: each element is offered in order, the stream
   * backpressured while the handle is full; when the stream completes, so does the input ({@link
   * #complete}). The materialized stage completes when the stream has been taken.
   */
  public Sink<T, CompletionStage<Done>> sink() {
    return Flow.<T>create()
        .mapAsync(16, this::offer)
        .toMat(Sink.ignore(), Keep.right())
        .mapMaterializedValue(
            done ->
                done.thenApply(
                    d -> {
                      complete();
                      return d;
                    }));
  }

  @Override
  public String toString() {
    return "Ingest[" + name + ", last " + last() + ", committed " + committed() + "]";
  }
}
