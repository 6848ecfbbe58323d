package io.koala.samples.experiment;

import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.GeneratorFunction;
import io.koala.dataflow.SourceSpec;
import io.koala.dataflow.Stage;
import io.koala.samples.nexmark.ClosedAuction;
import io.koala.samples.nexmark.ClosedAuctionGenerator;
import io.koala.samples.nexmark.Q6Star;
import io.koala.samples.twitch.TwitchGenerator;
import io.koala.samples.twitch.ViewerEvent;
import io.koala.samples.twitch.ViewerLoyalty;
import java.util.List;

/**
 * A workload of the rescale experiments (WORKLOADS.md): a generated stream whose records {@code 0
 * .. keys-1} touch every key once (the warm-up) and whose later records touch the active keys, and
 * one keyed operator, the target, that keeps exactly {@code stateBytes} bytes of state per key (a
 * {@code long} key id), so that the state a protocol had to move can be counted from the generator.
 */
public interface RescaleWorkload {

  /** Nexmark Q6*: closed auctions keyed by seller, uniform over the active sellers. */
  String Q6STAR = "q6star";

  /** Twitch viewer loyalty: viewer events keyed by streamer, Zipf-skewed over the active ones. */
  String TWITCH = "twitch";

  /** The workloads, by name. */
  static List<String> names() {
    return List.of(Q6STAR, TWITCH);
  }

  /**
   * The workload {@code s} names.
   *
   * @throws IllegalArgumentException when it names none
   */
  static RescaleWorkload of(RescaleSettings s) {
    return switch (s.workload()) {
      case Q6STAR -> new Q6StarWorkload(s);
      case TWITCH -> new TwitchWorkload(s);
      default ->
          throw new IllegalArgumentException(
              "--workload '" + s.workload() + "' is not available; implemented: " + names());
    };
  }

  String source();

  /** The keyed operator the experiment reconfigures. */
  String target();

  /** The key id of record {@code index}. */
  long keyOf(long index, long seed);

  /**
   * Adds the source (one partition per worker, at the settings' rate schedule) and the target (with
   * the settings' parallelism before and emulated capacity) to {@code b}.
   *
   * @return the target's output
   */
  Stage<?> build(DataflowBuilder b);

  /** The source of {@code generator} as the settings run it. */
  private static <T> SourceSpec<T> source(
      String name, GeneratorFunction<T> generator, RescaleSettings s) {
    return SourceSpec.generator(name, generator)
        .partitions(s.workers())
        .rate(s.schedule())
        .seed(s.seed());
  }

  /** Nexmark Q6*. */
  final class Q6StarWorkload implements RescaleWorkload {
    private final RescaleSettings s;
    private final ClosedAuctionGenerator generator;

    Q6StarWorkload(RescaleSettings s) {
      this.s = s;
      this.generator =
          new ClosedAuctionGenerator(
              s.keys(), s.activeKeys(), RescaleExperiment.BASE_TIME_MILLIS, s.rate());
    }

    @Override
    public String source() {
      return "closed-auctions";
    }

    @Override
    public String target() {
      return "q6-average-price";
    }

    @Override
    public long keyOf(long index, long seed) {
      return generator.sellerOf(index, seed);
    }

    @Override
    public Stage<?> build(DataflowBuilder b) {
      Q6Star.registerTypes(b);
      Stage<ClosedAuction> auctions =
          b.source(RescaleWorkload.source(source(), generator, s)).parallelism(s.workers());
      return Q6Star.averagePrice(auctions, target(), s.stateBytes())
          .parallelism(s.from())
          .capacity(s.taskCapacity());
    }
  }

  /** Twitch viewer loyalty (its reconfiguration target, the viewer-loyalty calculator). */
  final class TwitchWorkload implements RescaleWorkload {
    private final RescaleSettings s;
    private final TwitchGenerator generator;

    TwitchWorkload(RescaleSettings s) {
      this.s = s;
      this.generator =
          new TwitchGenerator(
              s.keys(), s.activeKeys(), RescaleExperiment.BASE_TIME_MILLIS, s.rate());
    }

    @Override
    public String source() {
      return "viewer-events";
    }

    @Override
    public String target() {
      return "viewer-loyalty";
    }

    @Override
    public long keyOf(long index, long seed) {
      return generator.streamerOf(index, seed);
    }

    @Override
    public Stage<?> build(DataflowBuilder b) {
      ViewerLoyalty.registerTypes(b);
      Stage<ViewerEvent> events =
          b.source(RescaleWorkload.source(source(), generator, s)).parallelism(s.workers());
      return ViewerLoyalty.calculator(events, target(), s.stateBytes())
          .parallelism(s.from())
          .capacity(s.taskCapacity());
    }
  }
}
