package io.koala.bench;

import io.koala.connector.IngestSource;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.job.ReconfigurationReport;
import io.koala.runtime.Ingest;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import io.koala.runtime.StateQuery;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * State queries while the job processes: a producer puts uniformly random keys into an ingest
 * source feeding the keyed count of {@link KeyedCountBench} (LMDB state) at a fixed rate, while
 * {@value #READERS} reader threads query the count of uniformly random keys of the same space, each
 * with up to {@value #IN_FLIGHT} reads in flight. After the warm-up, half of the measured seconds
 * run as they are; at the start of the other half the count is rescaled to twice its parallelism.
 * Reads/s and read latency (issue to answer) are reported for the steady half, for the rescale
 * itself (request to completion) and for the whole second half.
 */
public final class QueryBench {
  static final int READERS = 2;
  static final int IN_FLIGHT = 32;
  static final double DEFAULT_RATE = 50_000;
  static final int CAPACITY = 100_000;

  private static final StateQuery<Long, Optional<byte[]>> COUNT =
      StateQuery.value("count", "count", Long.class, byte[].class);

  private QueryBench() {}

  /** Runs the bench and returns its figures. */
  public static BenchResult run(BenchSettings s, KoalaConfig base) throws Exception {
    KoalaConfig config = base.withWorkers(s.workers()).withSeparateSystems(s.separateSystems());
    double rate = s.rate() > 0 ? s.rate() : DEFAULT_RATE;
    BenchResult result =
        new BenchResult()
            .put("workload", "query")
            .put("parallelism", s.parallelism())
            .put("keys", s.keys())
            .put("inputRate", Math.round(rate))
            .put("readers", READERS)
            .put("inFlightPerReader", IN_FLIGHT);
    IngestSource<Long> events = SourceSpec.ingest("events", CAPACITY);
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job =
          runtime.submit(IngestBench.dataflow(s, events, SinkSpec.discarding("counts")));
      try (Load load = new Load(job, job.ingest(events), s, rate)) {
        Thread.sleep(s.warmupSeconds() * 1000L);
        long half = s.seconds() * 500L;

        load.phase(); // the warm-up's reads are dropped
        Phase steady = Phase.run(job, load, half);
        steady.put(result, "steady");

        JobHandle.QueryStats q0 = job.queryStats();
        long t0 = System.nanoTime();
        long reads0 = load.answered.get();
        long records0 = job.metrics().recordsIn("count");
        CompletableFuture<ReconfigurationReport> rescale =
            job.rescale("count", 2 * s.parallelism()).toCompletableFuture();
        ReconfigurationReport report = rescale.get(10 * half, TimeUnit.MILLISECONDS);
        long rescaleNanos = System.nanoTime() - t0;
        Histogram during = load.phase();
        long readsDuring = load.answered.get() - reads0;
        long recordsDuring = job.metrics().recordsIn("count") - records0;
        double duringSeconds = rescaleNanos / 1e9;
        result
            .put("rescaleMs", Math.round(rescaleNanos / 1e6))
            .put("rescaleTasksAfter", report.tasksAfter().size())
            .put("rescaleReadsPerSecond", Math.round(readsDuring / duringSeconds))
            .put("rescaleP50ReadMs", ms(during.getValueAtPercentile(50)))
            .put("rescaleP99ReadMs", ms(during.getValueAtPercentile(99)))
            .put("rescaleMaxReadMs", ms(during.getMaxValue()))
            .put("rescaleRecordsPerSecond", Math.round(recordsDuring / duringSeconds));
        long rest = Math.max(0, half - rescaleNanos / 1_000_000);
        Phase after = Phase.run(job, load, rest);
        after.put(result, "afterRescale");
        JobHandle.QueryStats q1 = job.queryStats();
        result
            .put("readsByHolder", q1.byHolder() - q0.byHolder())
            .put("readsByOwner", q1.byOwner() - q0.byOwner())
            .put("redirects", q1.redirects() - q0.redirects())
            .put("resends", q1.resends() - q0.resends());
        load.check();
      }
      job.cancel().toCompletableFuture().join();
    }
    return result.put("cores", Runtime.getRuntime().availableProcessors());
  }

  private static double ms(long nanos) {
    return Math.round(nanos / 1e4) / 100.0;
  }

  /** Reads/s, read latency and records/s over one stretch of time. */
  private record Phase(double seconds, long reads, Histogram latency, long records) {
    static Phase run(JobHandle job, Load load, long millis) throws InterruptedException {
      long reads0 = load.answered.get();
      long records0 = job.metrics().recordsIn("count");
      long t0 = System.nanoTime();
      Thread.sleep(millis);
      Histogram latency = load.phase();
      double seconds = (System.nanoTime() - t0) / 1e9;
      return new Phase(
          seconds,
          load.answered.get() - reads0,
          latency,
          job.metrics().recordsIn("count") - records0);
    }

    void put(BenchResult r, String name) {
      r.put(name + "Seconds", Math.round(seconds * 100) / 100.0)
          .put(name + "ReadsPerSecond", Math.round(reads / seconds))
          .put(name + "P50ReadMs", ms(latency.getValueAtPercentile(50)))
          .put(name + "P99ReadMs", ms(latency.getValueAtPercentile(99)))
          .put(name + "MaxReadMs", ms(latency.getMaxValue()))
          .put(name + "RecordsPerSecond", Math.round(records / seconds));
    }
  }

  /** The producer and the readers, running until closed. */
  private static final class Load implements AutoCloseable {
    final AtomicLong answered = new AtomicLong();
    private final Recorder latency = new Recorder(3);
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();

    Load(JobHandle job, Ingest<Long> ingest, BenchSettings s, double rate) {
      threads.add(
          new Thread(
              () -> {
                long t0 = System.nanoTime();
                double nanosPerRecord = 1e9 / rate;
                try {
                  for (long i = 0; !stop.get(); i++) {
                    long due = t0 + (long) (i * nanosPerRecord);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                      LockSupport.parkNanos(wait);
                    }
                    ingest.put(KeyedCountBench.keyOf(i, s.seed(), s.keys()));
                  }
                } catch (InterruptedException e) {
                  // closed while waiting for room
                } catch (Throwable e) {
                  fail(e);
                }
              },
              "query-bench-producer"));
      for (int r = 0; r < READERS; r++) {
        SplittableRandom random = new SplittableRandom(s.seed() * 31 + r);
        threads.add(
            new Thread(
                () -> {
                  Semaphore window = new Semaphore(IN_FLIGHT);
                  try {
                    while (!stop.get()) {
                      window.acquire();
                      long key = random.nextLong(s.keys());
                      long start = System.nanoTime();
                      job.query(COUNT, key)
                          .whenComplete(
                              (v, e) -> {
                                window.release();
                                if (e != null) {
                                  fail(e);
                                } else {
                                  latency.recordValue(System.nanoTime() - start);
                                  answered.incrementAndGet();
                                }
                              });
                    }
                  } catch (InterruptedException e) {
                    // closed
                  }
                },
                "query-bench-reader-" + r));
      }
      threads.forEach(Thread::start);
    }

    /** The latencies recorded since the last call. */
    Histogram phase() {
      return latency.getIntervalHistogram();
    }

    private void fail(Throwable e) {
      if (!stop.get()) {
        failure.compareAndSet(null, e);
      }
    }

    /** Throws what failed the producer or a read, if anything did. */
    void check() {
      Throwable e = failure.get();
      if (e != null) {
        throw new IllegalStateException("the query bench's load failed: " + e, e);
      }
    }

    @Override
    public void close() {
      stop.set(true);
      threads.forEach(Thread::interrupt);
      for (Thread t : threads) {
        try {
          t.join(10_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
