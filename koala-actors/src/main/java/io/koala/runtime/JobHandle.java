package io.koala.runtime;

import io.koala.KoalaException;
import io.koala.connector.IngestSource;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.ReconfigurationException;
import io.koala.job.ReconfigurationReport;
import io.koala.routing.PartitionPolicy;
import io.koala.runtime.internal.IngestClient;
import io.koala.runtime.internal.JobClient;
import io.koala.runtime.internal.StateQueryClient;
import io.koala.time.DurationText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A submitted job: its status, completion, metrics and collected results. Thread-safe; every method
 * that talks to the job's coordinator waits at most {@code koala.metrics-timeout} plus 5 s.
 */
public final class JobHandle implements AutoCloseable {
  static {
    // Koala's own code in other packages (the cluster's runtime, the test hooks in
    // io.koala.runtime.testing) makes handles and reaches their job this way, not through the API
    JobClient.openHandles(h -> h.job, JobHandle::new);
  }

  private final JobClient job;
  private final Map<String, Ingest<?>> ingests = new HashMap<>(); // guarded by itself
  private StateQueryClient queries; // guarded by ingests; started at the first query

  JobHandle(JobClient job) {
    this.job = job;
  }

  public String id() {
    return job.jobId();
  }

  /** The job's status as last reported by its coordinator. */
  public JobStatus status() {
    return job.status().get();
  }

  /**
   * Completes with {@link JobStatus#FINISHED}, {@link JobStatus#CANCELLED} or {@link
   * JobStatus#STOPPED}, or exceptionally with a {@link JobFailedException}.
   */
  public CompletionStage<JobStatus> completion() {
    return job.completion().minimalCompletionStage();
  }

  /**
   * Waits for the job to end.
   *
   * @return {@link JobStatus#FINISHED}, {@link JobStatus#CANCELLED} or {@link JobStatus#STOPPED}
   * @throws JobFailedException when the job failed
   * @throws KoalaException when it has not ended within {@code timeout}
   */
  public JobStatus await(Duration timeout) {
    try {
      return job.completion().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof KoalaException k) {
        throw k;
      }
      throw new KoalaException("job " + id() + " failed", e.getCause());
    } catch (TimeoutException e) {
      throw new KoalaException(
          "job " + id() + " did not end within " + DurationText.of(timeout), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KoalaException("interrupted while waiting for job " + id(), e);
    }
  }

  /**
   * The handle that pushes records into {@code source}, one of the job's ingest sources; the same
   * handle on every call for that source.
   */
  @SuppressWarnings("unchecked")
  public <T> Ingest<T> ingest(IngestSource<T> source) {
    synchronized (ingests) {
      return (Ingest<T>)
          ingests.computeIfAbsent(
              source.name(), n -> new Ingest<>(IngestClient.attach(job, source), n));
    }
  }

  /**
   * Reads {@code query}'s state of {@code key} while the job runs. The read goes to the task that
   * processes the key now, and is answered from wherever the key's state is at that moment: that
   * task's store or, while a rescale, rebalance or migration has moved the key's bucket but not yet
   * its state, the store of the task still holding it. Reads of one key never go backwards: a read
   * made after another was answered returns the same value or a later one (across a recovery from a
   * failure, the job and its state go back to the checkpoint it restores).
   *
   * <p>Completes with the value (an empty {@code Optional}, list or map when the key has no such
   * state), or exceptionally with a {@link KoalaException} that says why: the operator or state
   * does not exist or is of another kind, the query's key or value classes are not those the
   * operator declared (naming both), the job has ended, or no answer came within {@code
   * koala.metrics-timeout} plus 5 s. Completions run on Koala's threads: use the {@code *Async}
   * stages for blocking work.
   */
  public <K, R> CompletionStage<R> query(StateQuery<K, R> query, K key) {
    java.util.Objects.requireNonNull(key, "key");
    return queries()
        .read(query.operator(), query.state(), query.kind(), query.types(), key, query.decoder());
  }

  /** The most keys one {@link #scan} returns. */
  public static final int MAX_SCAN_KEYS = 10_000;

  private static final int SCAN_KEYS_PER_REQUEST = 1_000;

  /**
   * Reads {@code query}'s state of the keys from {@code from} on, at most {@code limit} keys (at
   * most {@value #MAX_SCAN_KEYS}): meant for operators with small states. Each bucket is read from
   * its current owner, each key's state from wherever it is at that moment (as {@link #query} does;
   * a page is read one bucket at a time, so it is not one snapshot of the operator). Keys without
   * the state are left out. Go on from {@link StateScan#next()}.
   *
   * <pre>{@code
   * StateScan.Cursor at = StateScan.Cursor.all();
   * do {
   *   StateScan<String, Optional<Long>> page = job.scan(counts, at, 1_000).toCompletableFuture().join();
   *   page.entries().forEach(e -> System.out.println(e.getKey() + " " + e.getValue().get()));
   *   at = page.next().orElse(null);
   * } while (at != null);
   * }</pre>
   */
  public <K, R> CompletionStage<StateScan<K, R>> scan(
      StateQuery<K, R> query, StateScan.Cursor from, int limit) {
    java.util.Objects.requireNonNull(from, "from");
    if (limit < 1 || limit > MAX_SCAN_KEYS) {
      throw new IllegalArgumentException(
          "a scan returns 1 to " + MAX_SCAN_KEYS + " keys; asked for " + limit);
    }
    return scanFrom(query, from.bucket, from.endBucket, from.after, limit, new ArrayList<>());
  }

  @SuppressWarnings("unchecked")
  private <K, R> CompletionStage<StateScan<K, R>> scanFrom(
      StateQuery<K, R> query,
      int bucket,
      int end,
      byte[] after,
      int limit,
      List<Map.Entry<K, R>> entries) {
    int ask = Math.min(SCAN_KEYS_PER_REQUEST, limit - entries.size());
    return queries()
        .scan(
            query.operator(),
            query.state(),
            query.kind(),
            query.types(),
            bucket,
            after,
            ask,
            query.decoder())
        .thenCompose(
            chunk -> {
              chunk.entries().forEach(e -> entries.add((Map.Entry<K, R>) (Map.Entry<?, ?>) e));
              int last = end < 0 ? chunk.buckets() : Math.min(end, chunk.buckets());
              int nextBucket = chunk.next() == null ? bucket + 1 : bucket;
              if (nextBucket >= last) {
                return CompletableFuture.completedFuture(new StateScan<>(entries, null));
              }
              if (entries.size() >= limit) {
                return CompletableFuture.completedFuture(
                    new StateScan<>(entries, new StateScan.Cursor(nextBucket, end, chunk.next())));
              }
              return scanFrom(query, nextBucket, end, chunk.next(), limit, entries);
            });
  }

  /**
   * How this handle's state queries were answered so far: by the key's owner or by a holder of its
   * state, and how often a read was redirected or sent again.
   */
  public QueryStats queryStats() {
    StateQueryClient.Stats s = queries().stats();
    return new QueryStats(s.reads(), s.byOwner(), s.byHolder(), s.redirects(), s.resends());
  }

  /**
   * Counts of a handle's state queries.
   *
   * @param reads reads answered
   * @param byOwner answered from the store of the task processing the key
   * @param byHolder answered from the store of a task still holding the key's state after a
   *     reconfiguration moved its bucket
   * @param redirects times a task answered that it does not process the key's bucket (a
   *     reconfiguration was moving it, or the handle's routing table was out of date)
   * @param resends reads sent again after getting no answer for a second
   */
  public record QueryStats(long reads, long byOwner, long byHolder, long redirects, long resends) {}

  private StateQueryClient queries() {
    synchronized (ingests) {
      if (queries == null) {
        queries = StateQueryClient.start(job);
      }
      return queries;
    }
  }

  /** Cancels the job; completes with its final status. */
  public CompletionStage<JobStatus> cancel() {
    return job.cancel();
  }

  /**
   * Runs the keyed operator {@code operator} with {@code parallelism} tasks, live, buckets placed
   * by the default {@link PartitionPolicy#even()} policy: only the buckets new tasks need (or
   * removed tasks had) change owner, and their state moves lazily, key by key, when first touched.
   * A stage without keyed input (fed round-robin) is rescaled the same way with nothing to move; a
   * source, or a stage reading a forward edge, is refused. Reconfigurations run one at a time, in
   * request order; a queued rescale or rebalance of the same operator is replaced by this one (both
   * stages complete with its report).
   *
   * @return completes with the report once every task has switched and drained the change, or
   *     exceptionally with a {@link ReconfigurationException} saying why it was refused or why it
   *     did not complete
   */
  public CompletionStage<ReconfigurationReport> rescale(String operator, int parallelism) {
    return rescale(operator, parallelism, PartitionPolicy.even());
  }

  /** {@link #rescale(String, int)} with buckets placed by {@code policy}. */
  public CompletionStage<ReconfigurationReport> rescale(
      String operator, int parallelism, PartitionPolicy policy) {
    return job.rescale(operator, parallelism, policy);
  }

  /**
   * Keeps {@code operator}'s tasks and moves buckets between them as {@code policy} decides (for
   * skew: {@link PartitionPolicy#explicit(int[])}, indexed by bucket, naming live task indices).
   * See {@link #rescale(String, int)} for how it runs and completes.
   */
  public CompletionStage<ReconfigurationReport> rebalance(String operator, PartitionPolicy policy) {
    return job.rebalance(operator, policy);
  }

  /**
   * Moves task {@code task} of {@code operator} to worker {@code worker}: a new task (with a new
   * index) on that worker takes over all its buckets (of a stage without keyed input: its share of
   * the records); the old task stays only as the holder of state not yet fetched. See {@link
   * #rescale(String, int)} for how it runs and completes.
   */
  public CompletionStage<ReconfigurationReport> migrate(String operator, int task, int worker) {
    return job.migrate(operator, task, worker);
  }

  /** A snapshot of every task's metrics (the final ones once the job has ended). */
  public JobMetrics metrics() {
    return join(job.metrics());
  }

  /**
   * Takes a checkpoint now: completes with its id once it is committed, or exceptionally with a
   * {@link KoalaException} when checkpoints are off ({@code koala.checkpoint.interval = off}) or
   * the job ends first. A checkpoint waits for a running reconfiguration to end; one triggered
   * after this call and abandoned by a rollback is taken again. With checkpoints on, a collecting
   * sink's results become visible only as checkpoints commit (or when the job ends), so this also
   * publishes everything processed before the call.
   *
   * <pre>{@code
   * long id = job.checkpoint().toCompletableFuture().join();
   * }</pre>
   */
  public CompletionStage<Long> checkpoint() {
    return job.checkpoint();
  }

  /**
   * Takes a savepoint in {@code directory}: a checkpoint triggered now — like {@link
   * #checkpoint()}, it waits for a running reconfiguration, and for a checkpoint in progress to
   * commit — whose metadata and snapshot files (those of retired holders too, which older
   * checkpoints may have written) are then placed in {@code directory}: hard-linked when it is on
   * the same file store as {@code koala.checkpoint.directory}, else copied. The directory is
   * written under a temporary name and renamed when complete, so it never holds half a savepoint.
   * It is self-contained: copied or moved anywhere, it restores the job with {@link
   * SubmitOptions#restoreFrom} (by that method's rules) after the job and its checkpoint directory
   * are gone, and the job never deletes it.
   *
   * <p>Completes with the savepoint once it is written, or exceptionally with a {@link
   * KoalaException} saying why not: {@code directory} exists and is not empty, or is inside the
   * job's checkpoint directory; checkpoints are off ({@code koala.checkpoint.interval = off}: a
   * savepoint needs the checkpoint storage set up with them); the job is not running or is
   * finishing (its sources have read all their input); or a failure rolled the job back before the
   * savepoint's checkpoint committed (the job goes on). A relative {@code directory} is resolved
   * against this process's working directory; on a cluster, it must be reachable by the node that
   * coordinates the job, like the checkpoint directory.
   *
   * <pre>{@code
   * Savepoint s = job.savepoint(Path.of("/backup/orders/sp-1")).toCompletableFuture().join();
   * }</pre>
   */
  public CompletionStage<Savepoint> savepoint(java.nio.file.Path directory) {
    return job.savepoint(java.util.Objects.requireNonNull(directory, "directory"), false);
  }

  /**
   * Stops the job with a savepoint in {@code directory} (see {@link #savepoint}): the sources stop
   * at the savepoint's barrier — they read nothing after it and do not end their input, so nothing
   * fires because of the stop (windows, end-of-input timers) — the checkpoint commits, and with it
   * the exactly-once sinks and the collecting sinks' results, the savepoint is written, and then
   * the job's tasks stop and the job ends {@link JobStatus#STOPPED}. Restoring the savepoint with
   * the same dataflow continues exactly where the job stopped: with exactly-once sinks, no record
   * is lost or repeated across the stop.
   *
   * <p>Completes with the savepoint once it is written (the job is then stopping; {@link
   * #completion()} follows), or exceptionally as {@link #savepoint} does, the job going on: refused
   * before it started, its checkpoint abandoned by a rollback, or the savepoint not written (its
   * checkpoint stays in the job's own checkpoint directory, and the sources read again).
   */
  public CompletionStage<Savepoint> stopWithSavepoint(java.nio.file.Path directory) {
    return job.savepoint(java.util.Objects.requireNonNull(directory, "directory"), true);
  }

  /**
   * Stops the job with a final checkpoint, as {@link #stopWithSavepoint} does but without copying
   * it anywhere: the sources stop at its barrier, the checkpoint commits (and with it the
   * exactly-once sinks and the collecting sinks' results), the job's tasks stop and the job ends
   * {@link JobStatus#STOPPED}. The checkpoint stays in the job's checkpoint directory, and
   * submitting the same dataflow again under the same job id — on this runtime's {@code
   * koala.data-dir} after a restart — resumes from it: nothing read before the stop is read again.
   * {@link KoalaRuntime#close(Duration)} stops every job this way.
   *
   * <p>Completes with the checkpoint's id once it has committed (the job is then stopping; {@link
   * #completion()} follows), or exceptionally with a {@link KoalaException} saying why not, the job
   * going on: checkpoints are off, the job is not running or is finishing, or a failure rolled it
   * back before the checkpoint committed.
   */
  public CompletionStage<Long> stop() {
    return job.stop();
  }

  /**
   * The values the collecting sink {@code sink} has received so far, in arrival order. With
   * checkpoints on, only those a committed checkpoint covers (exactly once across rollbacks), and
   * all of them once the job has finished.
   */
  @SuppressWarnings("unchecked")
  public <T> List<T> collected(String sink) {
    return (List<T>) join(job.collected(sink));
  }

  private <R> R join(CompletionStage<R> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      throw new KoalaException("job " + id() + " did not answer: " + e.getCause(), e.getCause());
    }
  }

  /** Cancels the job if it is still running. */
  @Override
  public void close() {
    if (!status().isTerminal()) {
      join(cancel());
    }
  }

  @Override
  public String toString() {
    return "JobHandle(" + id() + ", " + status() + ")";
  }
}
