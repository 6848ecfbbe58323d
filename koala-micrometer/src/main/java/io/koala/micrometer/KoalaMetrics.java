package io.koala.micrometer;

import io.koala.KoalaException;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaRuntime;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics of Koala jobs in a Micrometer {@link MeterRegistry}: bind it once, and the meters of
 * every job of a runtime (or of one job) appear as jobs are submitted and their tasks deployed, and
 * go as tasks retire and jobs end. {@code docs/operations.md} lists every meter.
 *
 * <pre>{@code
 * KoalaMetrics metrics = KoalaMetrics.of(runtime); // every job the runtime runs
 * metrics.bindTo(registry);
 * ...
 * metrics.close(); // its meters leave the registry
 * }</pre>
 *
 * <p><b>Polling.</b> Every {@link Builder#pollInterval poll interval} (10 s by default) a daemon
 * thread asks each job's coordinator for one snapshot and moves every meter to it; a scrape or a
 * registry's publication only reads the values of the last poll, and never waits for a job. With a
 * poll interval of zero nothing polls on its own: {@link #refresh()} polls, say before each scrape.
 *
 * <p><b>Counters</b> (records, batches, stalls, state fetched, rollbacks, checkpoints,
 * reconfigurations) are {@code FunctionCounter}s that never go down: when a job rolls back to a
 * checkpoint its tasks count afresh, and the counters go on from where they were. <b>Latencies</b>
 * (per-batch processing time, state fetch round trips, reconfiguration durations) are {@link
 * io.micrometer.core.instrument.Timer}s with fixed buckets, fed at each poll with the durations
 * recorded since the previous one, so that their Prometheus {@code _bucket} series sum across tasks
 * and over time; a registry's {@code MeterFilter} may add Micrometer's percentile histogram or
 * percentiles. A job's timers count what happened since the binder first saw it: all of a job
 * submitted after {@link #bindTo}, and, of a job already running then, what happened after the
 * first poll.
 *
 * <p><b>Ended jobs.</b> The first poll after a job ends moves its meters to its final snapshot (its
 * {@code koala.job.status} gauge says how it ended); the next poll removes them.
 *
 * <p>Thread-safe. Bind an instance to one registry (a {@code CompositeMeterRegistry} to export to
 * several), and watch a job with one instance per registry: two would count its timers twice.
 */
public final class KoalaMetrics implements MeterBinder, AutoCloseable {
  /** How often a binder polls its jobs unless told otherwise. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(10);

  private static final Logger LOG = LoggerFactory.getLogger(KoalaMetrics.class);

  private final Supplier<? extends Collection<JobHandle>> jobs;
  private final Supplier<List<String>> workerNames;
  private final Tags tags;
  private final Duration pollInterval;
  private final Object lock = new Object(); // serializes binding, polls and closing
  private final Map<String, Watched> watched = new LinkedHashMap<>(); // by job id
  private final Set<String> runningAtBind = new HashSet<>(); // not yet seen by a poll
  private final java.nio.file.Path dataDir; // the runtime's: its disk's usable space; or null
  private Gauge diskUsable; // null: no data directory, or not bound
  private MeterRegistry registry; // null until bound
  private ScheduledExecutorService poller; // null: no poll interval, or not bound
  private boolean closed;

  private KoalaMetrics(Builder b) {
    this.jobs = b.jobs;
    this.workerNames = b.workerNames;
    this.tags = b.tags;
    this.pollInterval = b.pollInterval;
    this.dataDir = b.dataDir;
  }

  /** The meters of every job {@code runtime} runs, polled every 10 s. */
  public static KoalaMetrics of(KoalaRuntime runtime) {
    return builder(runtime).build();
  }

  /** The meters of {@code job}, polled every 10 s. */
  public static KoalaMetrics of(JobHandle job) {
    return builder(job).build();
  }

  /** A binder for every job {@code runtime} runs ({@link KoalaRuntime#jobs()}). */
  public static Builder builder(KoalaRuntime runtime) {
    Objects.requireNonNull(runtime, "runtime");
    Builder b = new Builder(runtime::jobs);
    b.dataDir = runtime.dataDir();
    return b;
  }

  /** A binder for {@code job} alone. */
  public static Builder builder(JobHandle job) {
    Objects.requireNonNull(job, "job");
    return new Builder(() -> job.status().isTerminal() ? List.of() : List.of(job));
  }

  /**
   * A binder for the jobs {@code jobs} lists, asked at each poll: a job it no longer lists has
   * ended, or is watched elsewhere (its final snapshot is asked for once more).
   */
  public static Builder builder(Supplier<? extends Collection<JobHandle>> jobs) {
    return new Builder(Objects.requireNonNull(jobs, "jobs"));
  }

  /**
   * Registers the meters of the jobs in {@code registry}, and starts polling them.
   *
   * @throws IllegalStateException when this binder is bound already, or closed
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("this KoalaMetrics is closed");
      }
      if (this.registry != null) {
        throw new IllegalStateException(
            "this KoalaMetrics is bound to a registry already; to export to several, bind it to"
                + " a CompositeMeterRegistry");
      }
      this.registry = registry;
      if (dataDir != null) {
        diskUsable =
            Gauge.builder("koala.store.disk.usable.bytes", dataDir, KoalaMetrics::usableBytes)
                .tags(tags.and("path", dataDir.toString()))
                .description(
                    "usable space on the file system of the workers' stores; below"
                        + " koala.store.min-free-disk, tasks' commits are refused")
                .baseUnit("bytes")
                .register(registry);
      }
      jobs.get().forEach(j -> runningAtBind.add(j.id()));
      if (!pollInterval.isZero()) {
        poller =
            Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "koala-metrics");
                  t.setDaemon(true);
                  return t;
                });
        poller.scheduleWithFixedDelay(
            this::scheduledPoll, 0, pollInterval.toNanos(), TimeUnit.NANOSECONDS);
      }
    }
  }

  /**
   * Polls now, and returns once every meter has moved to a new snapshot of its job (a job that does
   * not answer within {@code koala.metrics-timeout} keeps its values). Does nothing once closed.
   *
   * @throws IllegalStateException when this binder is not bound yet
   */
  public void refresh() {
    synchronized (lock) {
      if (registry == null) {
        throw new IllegalStateException("bind this KoalaMetrics to a registry before refresh()");
      }
      poll();
    }
  }

  /** Stops polling and removes every meter from the registry. Idempotent. */
  @Override
  public void close() {
    ScheduledExecutorService p;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      p = poller;
      watched.values().forEach(Watched::close);
      watched.clear();
      if (diskUsable != null) {
        registry.remove(diskUsable);
      }
    }
    if (p != null) {
      p.shutdownNow();
    }
  }

  /** The usable space of {@code dir}'s file system, NaN when it cannot be read. */
  private static double usableBytes(java.nio.file.Path dir) {
    try {
      return java.nio.file.Files.getFileStore(dir).getUsableSpace();
    } catch (java.io.IOException e) {
      return Double.NaN;
    }
  }

  private void scheduledPoll() {
    try {
      synchronized (lock) {
        poll();
      }
    } catch (RuntimeException e) { // the next poll tries again
      LOG.warn("polling the jobs' metrics failed", e);
    }
  }

  /** One poll: every job listed now, and every job watched that is not listed any more. */
  private void poll() {
    if (closed) {
      return;
    }
    Map<String, JobHandle> listed = new LinkedHashMap<>();
    jobs.get().forEach(j -> listed.put(j.id(), j));
    List<String> workers = workerNames.get();
    Set<String> ids = new LinkedHashSet<>(watched.keySet());
    ids.addAll(listed.keySet());
    for (String id : ids) {
      Watched w = watched.get(id);
      boolean isListed = listed.containsKey(id);
      if (w != null && w.ended) { // the poll after its end: its meters go
        w.close();
      }
      if (w != null && w.meters == null && !isListed) {
        watched.remove(id);
        continue;
      }
      JobHandle handle = isListed ? listed.get(id) : w.handle;
      MeterRows.Snapshot s = snapshot(handle, workers);
      if (s == null) {
        if (!isListed) { // gone without a last word
          w.close();
          watched.remove(id);
        }
        continue;
      }
      boolean ended = s.status().isTerminal() || !isListed;
      if (w == null || w.meters == null) {
        if (ended && w != null) {
          continue; // an ended job still listed (a node keeps its coordinator a while)
        }
        boolean replay = !runningAtBind.remove(id);
        w = new Watched(handle, new JobMeters(registry, tags, replay));
        watched.put(id, w);
      }
      w.handle = handle;
      w.meters.update(s);
      w.ended = ended;
    }
  }

  /** The rows of {@code job}'s snapshot now; null when it did not answer. */
  private static MeterRows.Snapshot snapshot(JobHandle job, List<String> workers) {
    try {
      return MeterRows.of(job.metrics(), workers);
    } catch (KoalaException e) {
      LOG.debug("job {} has no metrics now: {}", job.id(), e.getMessage());
      return null;
    }
  }

  /** A job being watched: its meters (null once removed), and whether it has ended. */
  private static final class Watched {
    JobHandle handle;
    JobMeters meters;
    boolean ended;

    Watched(JobHandle handle, JobMeters meters) {
      this.handle = handle;
      this.meters = meters;
    }

    void close() {
      if (meters != null) {
        meters.close();
        meters = null;
      }
    }
  }

  /** How a {@link KoalaMetrics} is made: its jobs, tags, poll interval and worker names. */
  public static final class Builder {
    private final Supplier<? extends Collection<JobHandle>> jobs;
    private Supplier<List<String>> workerNames = List::of;
    private Tags tags = Tags.empty();
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;
    private java.nio.file.Path dataDir; // a runtime's

    private Builder(Supplier<? extends Collection<JobHandle>> jobs) {
      this.jobs = jobs;
    }

    /** Tags every meter carries besides its own (which win on a clash). */
    public Builder tags(Iterable<Tag> tags) {
      this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
      return this;
    }

    /**
     * How often the binder polls its jobs ({@link #DEFAULT_POLL_INTERVAL} unless set); zero: only
     * when {@link KoalaMetrics#refresh()} is called.
     *
     * @throws IllegalArgumentException when negative
     */
    public Builder pollInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative()) {
        throw new IllegalArgumentException(
            "KoalaMetrics poll interval must be zero (refresh() only) or positive, not "
                + interval);
      }
      this.pollInterval = interval;
      return this;
    }

    /**
     * The name of each worker index, asked at each poll, that a task's {@code worker} tag carries
     * (by default, and for an index it does not name, the index itself).
     */
    public Builder workerNames(Supplier<List<String>> names) {
      this.workerNames = Objects.requireNonNull(names, "names");
      return this;
    }

    public KoalaMetrics build() {
      return new KoalaMetrics(this);
    }
  }
}
