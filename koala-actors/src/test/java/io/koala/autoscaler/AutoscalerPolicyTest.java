package io.koala.autoscaler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.koala.job.AutoscalerDecision;
import io.koala.job.AutoscalerDecision.Kind;
import io.koala.job.AutoscalerEvaluation;
import io.koala.routing.PartitionPolicy;
import io.koala.routing.RoutingTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The autoscaler's decisions on a modelled job: a source whose input arrives at a given rate, and a
 * keyed operator whose tasks each process {@code trueRate} records per busy second. Expected
 * parallelisms come from the rule the issue states: {@code ceil(target rate ÷ true rate per task ×
 * headroom)}, the target being the arrival rate plus the backlog over the catch-up time.
 */
class AutoscalerPolicyTest {
  private static final int BUCKETS = 60; // divisible by 1..6: an even placement is exact
  private static final double TRUE_RATE = 6_000;

  /** No lead: the rule as DS2 states it (see aRisingInputIsServedAheadByTheLead). */
  private static final AutoscalerSettings SETTINGS = settings(4, Duration.ZERO, List.of());

  private static final Duration LEAD = Duration.ofSeconds(10);

  /** A source feeding keyed operator {@code count}; counters are cumulative, as the runtime's. */
  private static final class ModelJob {
    long atMillis = 1_000_000;
    long read;
    long lag;
    RoutingTable routing;
    int[] live;
    double[] loads = uniform();
    final Map<Integer, long[]> counts = new HashMap<>(); // task -> {in, busyNanos}
    boolean keyed = true;
    String fixed; // why it cannot be rescaled live, or null
    String operator = "count";
    int maxParallelism = Integer.MAX_VALUE; // the most tasks the operator can use

    ModelJob(int parallelism) {
      live = range(parallelism);
      routing = RoutingTable.even(BUCKETS, parallelism);
    }

    /**
     * {@code seconds} pass: input arrives at {@code arrival}/s, the operator processes {@code
     * processed}/s, spread over its tasks by bucket load, each record costing {@code 1 ÷ trueRate}
     * busy seconds.
     */
    ModelJob run(double seconds, double arrival, double processed, double trueRate) {
      atMillis += (long) (seconds * 1000);
      long n = Math.round(processed * seconds);
      read += n;
      lag += Math.round(arrival * seconds) - n;
      double total = Arrays.stream(loads).sum();
      for (int b = 0; b < BUCKETS; b++) {
        long[] c = counts.computeIfAbsent(routing.owner(b), t -> new long[2]);
        double records = n * loads[b] / total;
        c[0] += Math.round(records);
        c[1] += Math.round(records / trueRate * 1e9);
      }
      return this;
    }

    LoadSample sample(boolean reconfiguring) {
      List<LoadSample.Task> tasks = new ArrayList<>();
      for (var e : counts.entrySet()) {
        tasks.add(
            new LoadSample.Task(e.getKey(), e.getValue()[0], e.getValue()[0], e.getValue()[1], 0));
      }
      LoadSample.Vertex source =
          new LoadSample.Vertex(
              "source",
              List.of(),
              true,
              false,
              new int[] {0},
              List.of(new LoadSample.Task(0, read, read, read * 1_000, lag)),
              null,
              null,
              "operator 'source' is an ingest source",
              Integer.MAX_VALUE);
      LoadSample.Vertex count =
          new LoadSample.Vertex(
              operator,
              List.of("source"),
              false,
              keyed,
              live,
              tasks,
              keyed ? routing : null,
              keyed ? loads : null,
              fixed,
              maxParallelism);
      return new LoadSample(atMillis, reconfiguring, List.of(source, count));
    }

    LoadSample sample() {
      return sample(false);
    }

    /** Carries out {@code a}: the operator's tasks and table become what the decision asks. */
    void apply(AutoscalerPolicy.Action a) {
      int to = a.decision().toParallelism();
      int[] after = Arrays.copyOf(live, to);
      int next = Arrays.stream(live).max().orElseThrow() + 1;
      for (int i = live.length; i < to; i++) {
        after[i] = next++;
      }
      Arrays.sort(after);
      routing = a.placement().assign(routing, after, BUCKETS);
      live = after;
    }
  }

  private static double[] uniform() {
    double[] l = new double[BUCKETS];
    Arrays.fill(l, 1);
    return l;
  }

  private static int[] range(int n) {
    int[] r = new int[n];
    for (int i = 0; i < n; i++) {
      r[i] = i;
    }
    return r;
  }

  private static int rule(double targetRate, double headroom) {
    return (int) Math.ceil(targetRate / TRUE_RATE * headroom - 1e-9);
  }

  private static AutoscalerEvaluation evaluationOf(AutoscalerPolicy policy, String operator) {
    return policy.evaluations().stream()
        .filter(e -> e.operator().equals(operator))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void scalesOutToWhatTheArrivalRateAndTheBacklogNeed() {
    ModelJob job = new ModelJob(2);
    AutoscalerPolicy policy = new AutoscalerPolicy(SETTINGS);
    assertThat(policy.decide(job.sample())).as("a first sample is only a baseline").isEmpty();
    job.run(5, 19_000, 12_000, TRUE_RATE); // saturated: 2 tasks of 6,000/s; backlog grows
    List<AutoscalerPolicy.Action> actions = policy.decide(job.sample());
    double target = 19_000 + job.lag / 10.0; // 22,500/s: 3.75 tasks of work, 4.7 with headroom
    assertThat(actions).hasSize(1);
    AutoscalerDecision d = actions.get(0).decision();
    assertThat(d.kind()).isEqualTo(Kind.SCALE_OUT);
    assertThat(d.operator()).isEqualTo("count");
    assertThat(d.fromParallelism()).isEqualTo(2);
    assertThat(d.toParallelism()).isEqualTo(rule(target, 1.25)).isEqualTo(5);
    AutoscalerEvaluation e = evaluationOf(policy, "count");
    assertThat(e.trueRatePerTask()).isCloseTo(TRUE_RATE, org.assertj.core.data.Offset.offset(1.0));
    assertThat(e.targetRate()).isCloseTo(target, org.assertj.core.data.Offset.offset(1.0));
    assertThat(e.inputRate()).isCloseTo(12_000, org.assertj.core.data.Offset.offset(1.0));
    assertThat(d.reason()).contains("true rate 6,000/s per task", "5 tasks");
    job.run(5, 40_000, 12_000, TRUE_RATE); // not carried out yet: still saturated, input up
    assertThat(policy.decide(job.sample()))
        .as("an interval that spans a decision decides nothing")
        .isEmpty();
    job.run(5, 40_000, 12_000, TRUE_RATE);
    assertThat(policy.decide(job.sample())).hasSize(1);
  }

  @Test
  void aRisingInputIsServedAheadByTheLead() {
    ModelJob job = new ModelJob(3);
    AutoscalerPolicy policy = new AutoscalerPolicy(settings(8, LEAD, List.of()));
    policy.decide(job.sample());
    job.run(5, 9_000, 9_000, TRUE_RATE);
    assertThat(policy.decide(job.sample())).as("3 tasks for 1.5 of work: hold").isEmpty();
    job.run(5, 12_000, 12_000, TRUE_RATE);
    assertThat(policy.decide(job.sample()))
        .as("3 tasks of work with the headroom, one interval's rise is no trend yet: hold")
        .isEmpty();
    job.run(5, 15_000, 15_000, TRUE_RATE); // +600 records/s each second, again
    List<AutoscalerPolicy.Action> actions = policy.decide(job.sample());
    double projected = 15_000 + 600 * 10; // 10 s ahead along the rise
    assertThat(rule(15_000, 1.25)).as("without the lead, 4 tasks").isEqualTo(4);
    assertThat(actions).hasSize(1);
    assertThat(actions.get(0).decision().toParallelism()).isEqualTo(rule(projected, 1.25));
    job.run(5, 9_000, 9_000, TRUE_RATE); // a falling input is not projected in the target
    assertThat(evaluationOf(policy, "count").targetRate()).isEqualTo(projected, within(1.0));
    policy.decide(job.sample(true));
    job.run(5, 9_000, 9_000, TRUE_RATE);
    policy.decide(job.sample());
    job.run(5, 6_000, 6_000, TRUE_RATE);
    policy.decide(job.sample());
    assertThat(evaluationOf(policy, "count").targetRate()).isEqualTo(6_000, within(1.0));
  }

  @Test
  void aFallingInputIsScaledInAheadButNotBelowWhatItNeedsNow() {
    for (Duration lead : List.of(Duration.ZERO, LEAD)) {
      ModelJob job = new ModelJob(8);
      AutoscalerPolicy policy = new AutoscalerPolicy(settings(8, lead, List.of()));
      policy.decide(job.sample());
      job.run(5, 35_500, 35_500, TRUE_RATE);
      assertThat(policy.decide(job.sample())).as("8 tasks for 5.9 of work: hold").isEmpty();
      job.run(5, 33_000, 33_000, TRUE_RATE); // -500 records/s each second
      assertThat(policy.decide(job.sample())).as("8 tasks for 5.5 of work: hold").isEmpty();
      job.run(5, 29_000, 29_000, TRUE_RATE); // -800 records/s each second: -500 held
      List<AutoscalerPolicy.Action> actions = policy.decide(job.sample());
      assertThat(rule(29_000, 1.25 * 1.2))
          .as("the rate now, with the hysteresis: no scale-in (the rule without a lead)")
          .isEqualTo(8);
      if (lead.isZero()) {
        assertThat(actions).isEmpty();
        continue;
      }
      double projected = 29_000 - 500 * 10;
      assertThat(rule(projected, 1.25 * 1.2)).as("the projection alone would go to").isEqualTo(6);
      assertThat(actions).hasSize(1);
      AutoscalerDecision d = actions.get(0).decision();
      assertThat(d.kind()).isEqualTo(Kind.SCALE_IN);
      assertThat(d.toParallelism())
          .as("no fewer than the rate now needs with the headroom")
          .isEqualTo(rule(29_000, 1.25))
          .isEqualTo(7);
      assertThat(d.reason()).contains("24,000 records/s projected along its fall");
      assertThat(evaluationOf(policy, "count").targetRate())
          .as("the target itself is not projected along a fall")
          .isEqualTo(29_000, within(1.0));
    }
  }

  @Test
  void aScaleInToOneTaskSaysSoInGoodEnglish() {
    ModelJob job = new ModelJob(3);
    AutoscalerPolicy policy = new AutoscalerPolicy(SETTINGS);
    policy.decide(job.sample());
    job.run(5, 2_000, 2_000, TRUE_RATE);
    List<AutoscalerPolicy.Action> actions = policy.decide(job.sample());
    assertThat(actions).hasSize(1);
    assertThat(actions.get(0).decision().toParallelism()).isEqualTo(1);
    assertThat(actions.get(0).decision().reason())
        .contains("1 task keeps it under 80% busy")
        .doesNotContain("1 tasks");
  }

  @Test
  void aScaleInMayFollowAScaleInWithinTheCooldown() {
    ModelJob job = new ModelJob(8);
    AutoscalerPolicy policy = new AutoscalerPolicy(SETTINGS);
    policy.decide(job.sample());
    job.run(5, 22_000, 22_000, TRUE_RATE); // 3.7 tasks of work: 6 with the hysteresis
    List<AutoscalerPolicy.Action> first = policy.decide(job.sample());
    assertThat(first).hasSize(1);
    assertThat(first.get(0).decision().toParallelism()).isEqualTo(6);
    long firstAt = job.atMillis;
    job.apply(first.get(0));
    job.run(1, 11_000, 11_000, TRUE_RATE);
    policy.decide(job.sample(true));
    job.run(4, 11_000, 11_000, TRUE_RATE);
    assertThat(policy.decide(job.sample())).as("after a reconfiguration: a baseline").isEmpty();
    job.run(5, 11_000, 11_000, TRUE_RATE); // 1.8 tasks of work: 3 with the hysteresis
    List<AutoscalerPolicy.Action> second = policy.decide(job.sample());
    assertThat(job.atMillis - firstAt).isLessThan(SETTINGS.cooldown().toMillis());
    assertThat(second).as("a scale-in after a scale-in keeps the direction").hasSize(1);
    assertThat(second.get(0).decision().kind()).isEqualTo(Kind.SCALE_IN);
    assertThat(second.get(0).decision().toParallelism()).isEqualTo(3);
  }

  @Test
  void aChangeIsBoundedByTheMaximumStepAndParallelism() {
    ModelJob job = new ModelJob(2);
    AutoscalerPolicy policy = new AutoscalerPolicy(settings(2, Duration.ZERO, List.of()));
    policy.decide(job.sample());
    job.run(5, 60_000, 12_000, TRUE_RATE);
    AutoscalerDecision d = policy.decide(job.sample()).get(0).decision();
    assertThat(d.toParallelism()).isEqualTo(4);
    assertThat(evaluationOf(policy, "count").wanted()).isEqualTo(16); // capped by max-parallelism
  }

  /** A source of 3 partitions (say) has something to read for 3 tasks at most. */
  @Test
  void anOperatorIsNotScaledBeyondTheTasksItCanUse() {
    ModelJob job = new ModelJob(2);
    job.keyed = false;
    job.maxParallelism = 3;
    AutoscalerPolicy policy = new AutoscalerPolicy(settings(2, Duration.ZERO, List.of()));
    policy.decide(job.sample());
    job.run(5, 60_000, 12_000, TRUE_RATE);
    AutoscalerDecision d = policy.decide(job.sample()).get(0).decision();
    assertThat(d.toParallelism()).isEqualTo(3);
    assertThat(evaluationOf(policy, "count").wanted()).isEqualTo(3);
  }

  @Test
  void scalesInOnlyBeyondTheHysteresis() {
    // 13,000/s on 4 tasks: 3 would do with the headroom (2.7), but not with the hysteresis (3.25)
    ModelJob job = new ModelJob(4);
    AutoscalerPolicy policy = new AutoscalerPolicy(SETTINGS);
    policy.decide(job.sample());
    job.run(5, 13_000, 13_000, TRUE_RATE);
    assertThat(rule(13_000, 1.25)).isEqualTo(3);
    assertThat(rule(13_000, 1.25 * 1.2)).isEqualTo(4);
    assertThat(policy.decide(job.sample())).isEmpty();
    assertThat(evaluationOf(policy, "count").verdict()).contains("within the target");
    // 9,000/s: 3 tasks even with the hysteresis
    job.run(5, 9_000, 9_000, TRUE_RATE);
    List<AutoscalerPolicy.Action> actions = policy.decide(job.sample());
    assertThat(actions).hasSize(1);
    assertThat(actions.get(0).decision().kind()).isEqualTo(Kind.SCALE_IN);
    assertThat(actions.get(0).decision().toParallelism()).isEqualTo(rule(9_000, 1.25 * 1.2));
  }

  @Test
  void aScaleOutIsNotHeldButAScaleInWaitsForTheCooldown() {
    ModelJob job = new ModelJob(2);
    AutoscalerPolicy policy = new AutoscalerPolicy(settings(1, Duration.ZERO, List.of()));
    policy.decide(job.sample());
    job.run(5, 30_000, 12_000, TRUE_RATE);
    List<AutoscalerPolicy.Action> first = policy.decide(job.sample());
    assertThat(first).hasSize(1);
    long decidedAt = job.atMillis;
    job.apply(first.get(0));
    job.run(2, 30_000, 18_000, TRUE_RATE);
    assertThat(policy.decide(job.sample(true))).as("reconfiguring").isEmpty();
    job.run(3, 30_000, 18_000, TRUE_RATE);
    assertThat(policy.decide(job.sample())).as("after a reconfiguration: a baseline").isEmpty();
    job.run(5, 30_000, 18_000, TRUE_RATE);
    List<AutoscalerPolicy.Action> second = policy.decide(job.sample());
    assertThat(second).as("a second scale-out within the cooldown").hasSize(1);
    assertThat(second.get(0).decision().toParallelism()).isEqualTo(4);
    job.apply(second.get(0));
    long secondAt = job.atMillis;
    job.run(5, 30_000, 24_000, TRUE_RATE);
    policy.decide(job.sample(true));
    job.run(5, 1_000, 1_000 + job.lag / 5.0, TRUE_RATE); // the input falls; the backlog is read
    policy.decide(job.sample());
    assertThat(job.lag).isZero();
    while (job.atMillis < secondAt + 30_000) {
      job.run(5, 1_000, 1_000, TRUE_RATE);
      List<AutoscalerPolicy.Action> next = policy.decide(job.sample());
      if (job.atMillis < secondAt + 30_000) {
        assertThat(next).as("at %d ms", job.atMillis - decidedAt).isEmpty();
        assertThat(evaluationOf(policy, "count").verdict()).contains("cooldown", "scale-in held");
      } else {
        assertThat(next).hasSize(1);
        assertThat(next.get(0).decision().kind()).isEqualTo(Kind.SCALE_IN);
      }
    }
  }

  @Test
  void aHotTaskIsRebalancedWhenItsParallelismWouldDo() {
    ModelJob job = new ModelJob(4); // task 0 owns buckets 0..14
    for (int b = 0; b < 15; b++) {
      job.loads[b] = 3; // task 0 carries half of the load
    }
    AutoscalerPolicy policy = new AutoscalerPolicy(SETTINGS);
    policy.decide(job.sample());
    job.run(5, 15_600, 15_600, TRUE_RATE); // 2.6 tasks of work: 4 balanced tasks at 65%
    List<AutoscalerPolicy.Action> actions = policy.decide(job.sample());
    assertThat(actions).hasSize(1);
    AutoscalerPolicy.Action a = actions.get(0);
    assertThat(a.decision().kind()).isEqualTo(Kind.REBALANCE);
    assertThat(a.decision().toParallelism()).isEqualTo(4);
    assertThat(a.placement()).isInstanceOf(PartitionPolicy.LoadAware.class);
    assertThat(evaluationOf(policy, "count").busiestUtilization())
        .isCloseTo(2.6 * 0.5, org.assertj.core.data.Offset.offset(0.01));
    job.apply(a);
    double[] perTask = new double[4];
    for (int b = 0; b < BUCKETS; b++) {
      perTask[job.routing.owner(b)] += job.loads[b];
    }
    assertThat(Arrays.stream(perTask).max().orElseThrow() / 90).isLessThan(0.3);
  }

  @Test
  void aSingleHotBucketDoesNotScaleToTheMaximum() {
    ModelJob job = new ModelJob(2);
    job.loads = new double[BUCKETS];
    Arrays.fill(job.loads, 1);
    job.loads[7] = BUCKETS - 1; // half of the load
    AutoscalerPolicy policy = new AutoscalerPolicy(SETTINGS);
    policy.decide(job.sample());
    job.run(5, 18_000, 12_000, TRUE_RATE);
    AutoscalerDecision d = policy.decide(job.sample()).get(0).decision();
    assertThat(d.kind()).isEqualTo(Kind.SCALE_OUT);
    assertThat(d.toParallelism()).isLessThan(SETTINGS.maxParallelism());
  }

  @Test
  void operatorsNotRescalableLiveOrNotCoveredAreEvaluatedAndLeftAlone() {
    ModelJob job = new ModelJob(2);
    job.fixed = "operator 'count' reads a forward edge";
    AutoscalerPolicy policy = new AutoscalerPolicy(SETTINGS);
    policy.decide(job.sample());
    job.run(5, 30_000, 12_000, TRUE_RATE);
    assertThat(policy.decide(job.sample())).isEmpty();
    assertThat(evaluationOf(policy, "count").verdict())
        .isEqualTo("not rescalable live: operator 'count' reads a forward edge");
    assertThat(evaluationOf(policy, "source").verdict()).startsWith("not rescalable live");

    ModelJob other = new ModelJob(2);
    AutoscalerPolicy only = new AutoscalerPolicy(settings(4, Duration.ZERO, List.of("elsewhere")));
    only.decide(other.sample());
    other.run(5, 30_000, 12_000, TRUE_RATE);
    assertThat(only.decide(other.sample())).isEmpty();
    assertThat(evaluationOf(only, "count").verdict()).contains("koala.autoscaler.operators");
  }

  /**
   * A stage without keyed input is fed round-robin: the rule holds without buckets (no hot bucket
   * bounds it), and it is never rebalanced.
   */
  @Test
  void aStageWithoutKeyedInputIsScaledByTheRuleAndNeverRebalanced() {
    ModelJob job = new ModelJob(2);
    job.keyed = false;
    AutoscalerPolicy policy = new AutoscalerPolicy(SETTINGS);
    policy.decide(job.sample());
    job.run(5, 19_000, 12_000, TRUE_RATE);
    List<AutoscalerPolicy.Action> actions = policy.decide(job.sample());
    double target = 19_000 + job.lag / 10.0;
    assertThat(actions).hasSize(1);
    assertThat(actions.get(0).decision().kind()).isEqualTo(Kind.SCALE_OUT);
    assertThat(actions.get(0).decision().toParallelism()).isEqualTo(rule(target, 1.25));
    job.apply(actions.get(0));
    job.lag = 0;
    job.run(5, 20_000, 20_000, TRUE_RATE);
    policy.decide(job.sample()); // spans the decision: a baseline
    job.run(5, 20_000, 20_000, TRUE_RATE);
    assertThat(policy.decide(job.sample())).as("within the target: no rebalance").isEmpty();
    assertThat(evaluationOf(policy, "count").verdict()).contains("within the target");
  }

  @Test
  void anOperatorWithNoInputScalesInTowardTheMinimum() {
    ModelJob job = new ModelJob(6);
    AutoscalerPolicy policy = new AutoscalerPolicy(SETTINGS);
    policy.decide(job.sample());
    job.run(5, 0, 0, TRUE_RATE);
    AutoscalerDecision d = policy.decide(job.sample()).get(0).decision();
    assertThat(d.kind()).isEqualTo(Kind.SCALE_IN);
    assertThat(d.toParallelism()).isEqualTo(6 - SETTINGS.maxStep());
  }

  /**
   * Random plateaus of input, the model job carrying out every decision (one sample during each
   * reconfiguration), without and with a lead: parallelism stays within its bounds, steps within
   * the maximum, a scale-in comes a cooldown after the last scale-out and leaves at least the tasks
   * the target rate needs with the headroom, the parallelism never changes direction twice within a
   * cooldown, and it serves every plateau by its end.
   */
  @Test
  void randomRatesKeepTheInvariants() {
    long seed = System.nanoTime();
    System.out.println("AutoscalerPolicyTest seed " + seed);
    keepsTheInvariants(SETTINGS, seed);
    keepsTheInvariants(settings(4, LEAD, List.of()), seed);
  }

  private static void keepsTheInvariants(AutoscalerSettings settings, long seed) {
    Random r = new Random(seed);
    ModelJob job = new ModelJob(1 + r.nextInt(4));
    AutoscalerPolicy policy = new AutoscalerPolicy(settings);
    policy.decide(job.sample());
    List<long[]> changes = new ArrayList<>(); // {at, direction}
    long lastScaleOut = Long.MIN_VALUE / 2;
    for (int plateau = 0; plateau < 12; plateau++) {
      double arrival = 1_000 + r.nextInt(60_000);
      for (int i = 0; i < 30; i++) {
        double capacity = job.live.length * TRUE_RATE;
        double processed = Math.min(capacity, arrival + job.lag / 5.0);
        job.run(5, arrival, processed, TRUE_RATE);
        for (AutoscalerPolicy.Action a : policy.decide(job.sample())) {
          AutoscalerDecision d = a.decision();
          String at = "seed " + seed + ", lead " + settings.lead() + ", at " + job.atMillis;
          int direction = Integer.signum(d.toParallelism() - d.fromParallelism());
          if (direction < 0) {
            assertThat(job.atMillis - lastScaleOut).as(at).isGreaterThanOrEqualTo(30_000);
            AutoscalerEvaluation e = evaluationOf(policy, "count");
            double need = e.targetRate() / e.trueRatePerTask();
            assertThat(d.toParallelism())
                .as("%s: no fewer than the target rate needs", at)
                .isGreaterThanOrEqualTo((int) Math.ceil(need * 1.25 - 1e-9));
          } else if (direction > 0) {
            lastScaleOut = job.atMillis;
          }
          if (direction != 0) {
            changes.add(new long[] {job.atMillis, direction});
          }
          int n = changes.size();
          if (n >= 3
              && changes.get(n - 1)[1] != changes.get(n - 2)[1]
              && changes.get(n - 2)[1] != changes.get(n - 3)[1]) {
            assertThat(changes.get(n - 1)[0] - changes.get(n - 3)[0])
                .as("%s: two reversals", at)
                .isGreaterThanOrEqualTo(30_000);
          }
          assertThat(Math.abs(d.toParallelism() - d.fromParallelism()))
              .as(at)
              .isLessThanOrEqualTo(4);
          assertThat(d.toParallelism()).as(at).isBetween(1, 16);
          job.apply(a);
          job.run(1, arrival, Math.min(job.live.length * TRUE_RATE, arrival), TRUE_RATE);
          assertThat(policy.decide(job.sample(true))).as(at).isEmpty();
        }
      }
      double needed = Math.min(16, rule(arrival, 1.0));
      assertThat(job.live.length)
          .as("seed %d: plateau at %,.0f/s", seed, arrival)
          .isGreaterThanOrEqualTo((int) needed);
    }
  }

  private static AutoscalerSettings settings(int maxStep, Duration lead, List<String> operators) {
    return new AutoscalerSettings(
        true,
        Duration.ofSeconds(5),
        1.25,
        0.2,
        Duration.ofSeconds(30),
        maxStep,
        1,
        16,
        Duration.ofSeconds(10),
        lead,
        operators);
  }
}
