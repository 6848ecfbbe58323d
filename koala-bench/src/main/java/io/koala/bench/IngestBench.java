package io.koala.bench;

import io.koala.connector.IngestSource;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobMetrics;
import io.koala.job.LatencyHistogram;
import io.koala.runtime.Ingest;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Push ingestion: {@value #PRODUCERS} producer threads {@code put} uniformly random keys into an
 * ingest source feeding the keyed count of {@link KeyedCountBench} (LMDB state). Two phases, each
 * its own job: throughput into a discarding sink (records/s counted at the count operator after a
 * warm-up), then the same with a sink that sleeps 1 ms every {@value #SLOW_EVERY} records, sampling
 * the heap used every 100 ms to show that the producers are held back rather than buffered.
 */
public final class IngestBench {
  static final int PRODUCERS = 4;
  static final int SLOW_EVERY = 10;
  static final int CAPACITY = 100_000;

  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

  private IngestBench() {}

  static Dataflow dataflow(BenchSettings s, IngestSource<Long> events, SinkSpec<Long> sink) {
    DataflowBuilder b = Dataflow.builder("ingest-count").parallelism(s.parallelism());
    int stateBytes = s.stateBytes();
    b.source(events)
        .keyBy((Long k) -> k)
        .process("count", () -> new KeyedCountBench.Count(stateBytes))
        .sink(sink);
    return b.build();
  }

  /** Runs both phases and returns their figures. */
  public static BenchResult run(BenchSettings s, KoalaConfig base) throws Exception {
    KoalaConfig config = base.withWorkers(s.workers()).withSeparateSystems(s.separateSystems());
    BenchResult result =
        new BenchResult()
            .put("workload", "ingest")
            .put("parallelism", s.parallelism())
            .put("producers", PRODUCERS)
            .put("capacity", CAPACITY);
    IngestSource<Long> events = SourceSpec.ingest("events", CAPACITY);

    // Phase 1: throughput
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(s, events, SinkSpec.discarding("counts")));
      try (Producers p = new Producers(job.ingest(events), s)) {
        Thread.sleep(s.warmupSeconds() * 1000L);
        JobMetrics m0 = job.metrics();
        long accepted0 = p.ingest.last();
        long t0 = System.nanoTime();
        Thread.sleep(s.seconds() * 1000L);
        JobMetrics m1 = job.metrics();
        double elapsed = (System.nanoTime() - t0) / 1e9;
        long records = m1.recordsIn("count") - m0.recordsIn("count");
        LatencyHistogram latency = m1.batchLatency("count").minus(m0.batchLatency("count"));
        result
            .put("records", records)
            .put("seconds", round(elapsed))
            .put("recordsPerSecond", Math.round(records / elapsed))
            .put("acceptedPerSecond", Math.round((p.ingest.last() - accepted0) / elapsed))
            .put("p99BatchLatencyMs", round(latency.percentile(99) / 1e6));
        p.check();
      }
      job.cancel().toCompletableFuture().join();
    }

    // Phase 2: a sink that sleeps; the heap stays flat because the producers wait
    System.gc();
    long heapBefore = MEMORY.getHeapMemoryUsage().getUsed();
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(dataflow(s, events, SinkSpec.forEach("slow", new Slow())));
      try (Producers p = new Producers(job.ingest(events), s)) {
        long heapMax = 0;
        long heldMax = 0;
        long t0 = System.nanoTime();
        long accepted0 = p.ingest.last();
        long end = t0 + s.seconds() * 1_000_000_000L;
        while (System.nanoTime() < end) {
          LockSupport.parkNanos(100_000_000L);
          heapMax = Math.max(heapMax, MEMORY.getHeapMemoryUsage().getUsed());
          heldMax = Math.max(heldMax, p.ingest.last() - p.ingest.committed());
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        long accepted = p.ingest.last() - accepted0;
        System.gc(); // what the running job and its waiting producers retain
        result
            .put("slowSinkAcceptedPerSecond", Math.round(accepted / elapsed))
            .put("slowSinkHeapAfterGcBytes", MEMORY.getHeapMemoryUsage().getUsed())
            .put("slowSinkHeldMax", heldMax)
            .put("slowSinkHeapBeforeBytes", heapBefore)
            .put("slowSinkHeapUsedMaxBytes", heapMax)
            .put("maxHeapBytes", MEMORY.getHeapMemoryUsage().getMax());
        p.check();
      }
      job.cancel().toCompletableFuture().join();
    }
    return result.put("cores", Runtime.getRuntime().availableProcessors());
  }

  /** Sleeps 1 ms every {@value #SLOW_EVERY} records: at most about 10,000 records/s per task. */
  static final class Slow implements io.koala.connector.SinkFunction<Long> {
    private long n;

    @Override
    public void accept(Long value) throws InterruptedException {
      if (++n % SLOW_EVERY == 0) {
        Thread.sleep(1);
      }
    }
  }

  /** The producer threads, putting until closed. */
  private static final class Producers implements AutoCloseable {
    final Ingest<Long> ingest;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();

    Producers(Ingest<Long> ingest, BenchSettings s) {
      this.ingest = ingest;
      for (int t = 0; t < PRODUCERS; t++) {
        long first = t;
        Thread thread =
            new Thread(
                () -> {
                  try {
                    for (long i = first; !stop.get(); i += PRODUCERS) {
                      ingest.put(KeyedCountBench.keyOf(i, s.seed(), s.keys()));
                    }
                  } catch (InterruptedException e) {
                    // closed while waiting for room
                  } catch (Throwable e) {
                    if (!stop.get()) {
                      failure.set(e);
                    }
                  }
                },
                "producer-" + t);
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
      }
    }

    void check() {
      if (failure.get() != null) {
        throw new IllegalStateException("a producer failed", failure.get());
      }
    }

    @Override
    public void close() {
      stop.set(true);
      for (Thread t : threads) {
        t.interrupt();
      }
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

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
