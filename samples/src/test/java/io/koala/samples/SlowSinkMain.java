package io.koala.samples;

import io.koala.connector.SinkContext;
import io.koala.connector.SinkSpec;
import io.koala.connector.SinkWriter;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobMetrics;
import io.koala.runtime.JobHandle;
import io.koala.runtime.KoalaConfig;
import io.koala.runtime.KoalaRuntime;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link SmallHeapTest} in a child JVM with a small heap: an unlimited source of 1 KiB
 * records into a sink that sleeps 10 ms per batch, for {@code args[0]} seconds. Prints the records
 * the source read and the sink wrote, then exits 0; an unbounded buffer would exhaust the heap.
 */
public final class SlowSinkMain {
  private SlowSinkMain() {}

  public static void main(String[] args) throws Exception {
    int seconds = Integer.parseInt(args[0]);
    String payload = "p".repeat(1024);
    DataflowBuilder b = Dataflow.builder("small-heap").parallelism(2);
    b.source(SourceSpec.generator("fast", (i, s) -> payload).partitions(2))
        .keyBy(String::length)
        .reduce("latest", (a, v) -> v)
        .sink(
            new SinkSpec<String>() {
              @Override
              public String name() {
                return "slow";
              }

              @Override
              public SinkWriter<String> open(SinkContext ctx) {
                return new SinkWriter<>() {
                  @Override
                  public void write(String value, long ts) {}

                  @Override
                  public void flush() throws InterruptedException {
                    TimeUnit.MILLISECONDS.sleep(10);
                  }
                };
              }
            });
    try (KoalaRuntime runtime = KoalaRuntime.embedded(KoalaConfig.load())) {
      JobHandle job = runtime.submit(b.build());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(200); // the child's own pacing, not a test synchronization
      }
      JobMetrics m = job.metrics();
      System.out.println("read=" + m.recordsIn("fast") + " written=" + m.recordsIn("latest"));
      job.cancel().toCompletableFuture().join();
    }
  }
}
