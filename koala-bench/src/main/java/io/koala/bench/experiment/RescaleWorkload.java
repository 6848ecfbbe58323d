package io.koala.bench.experiment;

import io.koala.cli.ProtocolChoice;
import io.koala.connector.GeneratorFunction;
import io.koala.connector.RateSchedule;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.DataflowBuilder;
import io.koala.dataflow.Stage;
import io.koala.samples.azure.AzureCpu;
import io.koala.samples.azure.AzureGenerator;
import io.koala.samples.borg.BorgGenerator;
import io.koala.samples.borg.BorgMonitoring;
import io.koala.samples.nexmark.ClosedAuctionGenerator;
import io.koala.samples.nexmark.Q6Star;
import io.koala.samples.nexmark.RecentPrices;
import io.koala.samples.taxi.TaxiGenerator;
import io.koala.samples.taxi.TaxiTrends;
import io.koala.samples.twitch.Loyalty;
import io.koala.samples.twitch.Retention;
import io.koala.samples.twitch.TwitchGenerator;
import io.koala.samples.twitch.TwitchPipeline;
import io.koala.samples.twitch.ViewerLoyalty;
import java.time.Duration;
import java.util.List;

/**
 * A workload of the rescale experiments (WORKLOADS.md): a generated stream whose records {@code 0
 * .. keys-1} touch every key once (the warm-up) and whose later records touch the active keys with
 * the workload's skew, and keyed operators, the targets, that keep exactly {@code stateBytes} bytes
 * of state per key (a {@code long} key id), so that the state a protocol had to move can be counted
 * from the generator.
 *
 * @param name the workload's name ({@link #names()})
 * @param source the source's operator name
 * @param targets the keyed operators a reconfiguration may target; the first is the one the
 *     experiment measures (and rescales, unless told otherwise)
 * @param keyOf the key id of record {@code index} under a seed
 * @param build adds the source (one partition per worker, at a rate schedule) and the targets (at
 *     the settings' parallelism before and emulated capacity) to a builder, and returns the output
 *     to count: one record per input record
 */
public record RescaleWorkload(
    String name, String source, List<String> targets, KeyOf keyOf, Builder build) {

  /** Nexmark Q6*: closed auctions keyed by seller, uniform over the active sellers. */
  public static final String Q6STAR = "q6star";

  /**
   * Nexmark Q6* with Nexmark's seller model: sellers drawn from recently registered persons (hot
   * sellers 3/4 of the time), so the keys touched drift to new ones.
   */
  public static final String Q6STAR_SELLERS = "q6star-sellers";

  /** Twitch viewer loyalty: viewer events keyed by streamer, Zipf-skewed over the active ones. */
  public static final String TWITCH = "twitch";

  /**
   * The whole Twitch pipeline: retention analyser and loyalty calculator as targets, then trend.
   */
  public static final String TWITCH_PIPELINE = "twitch-pipeline";

  /** Taxi trends: trips keyed by (route, vendor), Zipf 1.1 over the active routes. */
  public static final String TAXI = "taxi";

  /** Borg: task events keyed by (job, event type), heavy-tailed over jobs. */
  public static final String BORG = "borg";

  /** Azure: VM CPU readings keyed by VM, over a moving window of live VMs. */
  public static final String AZURE = "azure";

  /** Adds a workload to a builder, its source following a rate schedule. */
  @FunctionalInterface
  public interface Builder {
    Stage<?> build(DataflowBuilder b, RateSchedule rates);
  }

  /** The key id of a record. */
  @FunctionalInterface
  public interface KeyOf {
    long keyOf(long index, long seed);
  }

  public RescaleWorkload {
    targets = List.copyOf(targets);
  }

  /** The workloads, by name. */
  public static List<String> names() {
    return List.of(Q6STAR, Q6STAR_SELLERS, TWITCH, TWITCH_PIPELINE, TAXI, BORG, AZURE);
  }

  /**
   * The fewest bytes of state per key the workload {@code name} can keep.
   *
   * @throws IllegalArgumentException when it names no workload
   */
  public static int minStateBytes(String name) {
    return switch (name) {
      case Q6STAR, Q6STAR_SELLERS -> RecentPrices.MIN_BYTES;
      case TWITCH -> Loyalty.MIN_BYTES;
      case TWITCH_PIPELINE -> Math.max(Loyalty.MIN_BYTES, Retention.MIN_BYTES);
      case TAXI -> TaxiTrends.MIN_STATE_BYTES;
      case BORG -> BorgMonitoring.MIN_STATE_BYTES;
      case AZURE -> AzureCpu.MIN_STATE_BYTES;
      default -> throw unknown(name);
    };
  }

  private static IllegalArgumentException unknown(String name) {
    return new IllegalArgumentException(
        "--workload '" + name + "' is not available; implemented: " + names());
  }

  /**
   * The workload {@code s} names.
   *
   * @throws IllegalArgumentException when it names none
   */
  public static RescaleWorkload of(RescaleSettings s) {
    long t0 = RescaleExperiment.BASE_TIME_MILLIS;
    int state = s.stateBytes();
    switch (s.workload()) {
      case Q6STAR, Q6STAR_SELLERS -> {
        ClosedAuctionGenerator g =
            s.workload().equals(Q6STAR)
                ? new ClosedAuctionGenerator(s.keys(), s.activeKeys(), t0, s.rate())
                : ClosedAuctionGenerator.recentSellers(s.keys(), s.activeKeys(), t0, s.rate());
        String target = "q6-average-price";
        return new RescaleWorkload(
            s.workload(),
            "closed-auctions",
            List.of(target),
            g::sellerOf,
            (b, rates) ->
                target(
                    Q6Star.averagePrice(
                        source(Q6Star.registerTypes(b), "closed-auctions", g, s, rates),
                        target,
                        state),
                    s));
      }
      case TWITCH -> {
        TwitchGenerator g = new TwitchGenerator(s.keys(), s.activeKeys(), t0, s.rate());
        String target = "viewer-loyalty";
        return new RescaleWorkload(
            TWITCH,
            "viewer-events",
            List.of(target),
            g::streamerOf,
            (b, rates) ->
                target(
                    ViewerLoyalty.calculator(
                        source(ViewerLoyalty.registerTypes(b), "viewer-events", g, s, rates),
                        target,
                        state),
                    s));
      }
      case TWITCH_PIPELINE -> {
        TwitchGenerator g = new TwitchGenerator(s.keys(), s.activeKeys(), t0, s.rate());
        return new RescaleWorkload(
            TWITCH_PIPELINE,
            "viewer-events",
            List.of(TwitchPipeline.LOYALTY, TwitchPipeline.RETENTION),
            g::streamerOf,
            (b, rates) -> {
              TwitchPipeline.Stages stages =
                  TwitchPipeline.build(
                      source(TwitchPipeline.registerTypes(b), "viewer-events", g, s, rates),
                      state,
                      state);
              target(stages.retention(), s);
              target(stages.loyalty(), s);
              return stages.trend().parallelism(s.from());
            });
      }
      case TAXI -> {
        TaxiGenerator g = new TaxiGenerator(s.keys(), s.activeKeys(), t0, s.rate());
        return new RescaleWorkload(
            TAXI,
            "taxi-trips",
            List.of(TaxiTrends.OPERATOR),
            g::keyOf,
            (b, rates) ->
                target(
                    TaxiTrends.medianTripTime(
                        source(TaxiTrends.registerTypes(b), "taxi-trips", g, s, rates),
                        TaxiTrends.OPERATOR,
                        state),
                    s));
      }
      case BORG -> {
        BorgGenerator g = new BorgGenerator(s.keys(), s.activeKeys(), t0, s.rate());
        return new RescaleWorkload(
            BORG,
            "borg-events",
            List.of(BorgMonitoring.OPERATOR),
            g::keyOf,
            (b, rates) ->
                target(
                    BorgMonitoring.requestStats(
                        source(BorgMonitoring.registerTypes(b), "borg-events", g, s, rates),
                        BorgMonitoring.OPERATOR,
                        state),
                    s));
      }
      case AZURE -> {
        AzureGenerator g = new AzureGenerator(s.keys(), s.activeKeys(), t0, s.rate());
        return new RescaleWorkload(
            AZURE,
            "vm-readings",
            List.of(AzureCpu.OPERATOR),
            g::keyOf,
            (b, rates) ->
                target(
                    AzureCpu.cpuStats(
                        source(AzureCpu.registerTypes(b), "vm-readings", g, s, rates),
                        AzureCpu.OPERATOR,
                        state),
                    s));
      }
      default -> throw unknown(s.workload());
    }
  }

  /** The keyed operator the experiment measures. */
  public String target() {
    return targets.get(0);
  }

  /** The key id of record {@code index}. */
  public long keyOf(long index, long seed) {
    return keyOf.keyOf(index, seed);
  }

  /** Adds the workload to {@code b}, its input at {@code rates}; returns the output to count. */
  public Stage<?> build(DataflowBuilder b, RateSchedule rates) {
    return build.build(b, rates);
  }

  /** The source of {@code generator} as the settings run it, one partition per worker. */
  private static <T> Stage<T> source(
      DataflowBuilder b,
      String name,
      GeneratorFunction<T> generator,
      RescaleSettings s,
      RateSchedule rates) {
    return b.source(
            SourceSpec.generator(name, generator)
                .partitions(s.workers())
                .rate(rates)
                .seed(s.seed()))
        .parallelism(s.workers());
  }

  /**
   * The target at its parallelism before and emulated capacity; in the control run at its
   * parallelism after from the start, with the capacity before in total until the rescale and the
   * capacity after from then on ({@link ProtocolChoice#CONTROL}).
   */
  private static <T> Stage<T> target(Stage<T> stage, RescaleSettings s) {
    if (s.protocol().equals(ProtocolChoice.CONTROL)) {
      return stage
          .parallelism(s.to())
          .capacity(
              s.capacityBefore() / s.to(),
              Duration.ofSeconds(s.rescaleAtSecond()),
              s.taskCapacity());
    }
    return stage.parallelism(s.from()).capacity(s.taskCapacity());
  }
}
