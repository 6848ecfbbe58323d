package io.koala.bench;

import io.koala.connector.RateSchedule;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.eventtime.WatermarkStrategy;
import io.koala.runtime.KoalaConfig;
import io.koala.samples.nexmark.Bid;
import io.koala.samples.nexmark.NexmarkGenerator;
import io.koala.window.WindowAssigner;
import java.time.Duration;

/**
 * Window count, the shape of Nexmark Q5: bids keyed by auction, counted in sliding event-time
 * windows of 10 s every 2 s. Event time advances by {@code 1 / eventsPerSecond} per event, so the
 * windows fire as the dataflow reads.
 */
public final class WindowCountBench {
  private WindowCountBench() {}

  /** The dataflow: bids → keyBy(auction) → sliding 10 s / 2 s count → discarding sink. */
  public static Dataflow dataflow(BenchSettings s) {
    NexmarkGenerator gen = new NexmarkGenerator(s.seed(), 0, s.eventsPerSecond());
    DataflowBuilder b = Dataflow.builder("window-count").parallelism(s.parallelism());
    b.registerTypes(Bid.class);
    RateSchedule rate = s.rate() > 0 ? RateSchedule.constant(s.rate()) : RateSchedule.unlimited();
    b.source(
            SourceSpec.generator("bids", (i, seed) -> gen.bid(i))
                .partitions(s.parallelism())
                .rate(rate)
                .seed(s.seed())
                .eventTime(Bid::dateTime),
            WatermarkStrategy.monotonousTimestamps())
        .keyBy(Bid::auction)
        .window(WindowAssigner.sliding(Duration.ofSeconds(10), Duration.ofSeconds(2)))
        .count("count")
        .sink(SinkSpec.discarding("counts"));
    return b.build();
  }

  /** Runs the bench and returns its figures. */
  public static BenchResult run(BenchSettings s, KoalaConfig base) throws InterruptedException {
    // the key space: auctions created up to the last bid read
    return BenchRunner.run(
        "window-count",
        dataflow(s),
        "count",
        m -> NexmarkGenerator.auctionsBefore(NexmarkGenerator.bidEventIndex(m.recordsIn("bids"))),
        s,
        base);
  }
}
