package io.koala.coordinator;

import io.koala.autoscaler.AutoscalerPolicy;
import io.koala.autoscaler.AutoscalerSettings;
import io.koala.autoscaler.LoadSample;
import io.koala.job.AutoscalerDecision;
import io.koala.job.AutoscalerStatus;
import io.koala.job.JobMetrics;
import io.koala.plan.ExecutionPlan;
import java.util.ArrayList;
import java.util.List;

/**
 * The autoscaler's driver in the job's coordinator ({@code koala.autoscaler}): every interval it
 * gathers the tasks' metrics, has {@link AutoscalerPolicy} decide from them, and queues each
 * decision as a reconfiguration request, like a user's (journaled, run one at a time, by the job's
 * reconfiguration protocol). Its state is soft: a coordinator that takes over starts it afresh.
 */
public final class Autoscaling {
  static final Object TIMER = "autoscaler";

  /** What the autoscaler asks of the job's other parts. */
  interface Parts {
    /** Gathers the tasks' metrics; they come back to {@link #onMetrics}. */
    void gatherMetrics();

    /** Whether a reconfiguration runs or waits in the queue. */
    boolean reconfiguring();

    /** Queues {@code request} like a user's. */
    void reconfigure(JobInput.Reconfigure request);
  }

  private final Outbox out;
  private final JobState state;
  private final Attempts attempts;
  private final CurrentStatus job;
  private final Parts parts;
  private final ExecutionPlan plan;
  private final AutoscalerSettings settings;
  private final AutoscalerPolicy policy; // null: off
  private final List<AutoscalerDecision> decisions = new ArrayList<>(); // oldest first
  private final List<Pending> pending = new ArrayList<>();
  private long scaleOuts;
  private long scaleIns;
  private long rebalances;
  private boolean gathering;
  private int rollbacksSeen;

  /**
   * Where a decision's outcome comes back: the core hands it over instead of replying, so it never
   * leaves the coordinator (registered with the serializer like every reply address).
   *
   * @param decision the decision carried out
   * @param submittedMillis when it was queued
   */
  public record Pending(AutoscalerDecision decision, long submittedMillis)
      implements ReplyTo<JobReply.Outcome> {
    @Override
    public void tell(JobReply.Outcome message) {
      throw new IllegalStateException("the job core answers the autoscaler itself");
    }
  }

  Autoscaling(
      JobSetup setup,
      Outbox out,
      JobState state,
      Attempts attempts,
      CurrentStatus job,
      Parts parts) {
    this.out = out;
    this.state = state;
    this.attempts = attempts;
    this.job = job;
    this.parts = parts;
    this.plan = setup.plan();
    this.settings = setup.reconfiguration().autoscaler();
    this.policy = settings.enabled() ? new AutoscalerPolicy(settings) : null;
  }

  /** An input about the autoscaler's interval. */
  void on(JobInput.Autoscaler input) {
    if (input == JobInput.AutoscalerTick.INSTANCE) {
      onTick();
    } else {
      throw new IllegalStateException("unhandled " + input);
    }
  }

  /** Starts the interval timer when the job is autoscaled. */
  void start() {
    if (policy != null) {
      out.emit(
          new JobEffect.StartTimer(
              TIMER, JobInput.AutoscalerTick.INSTANCE, settings.interval(), true));
    }
  }

  /** The interval passed: gathers the tasks' metrics, unless a gathering is still out. */
  void onTick() {
    if (policy == null || gathering || !job.running()) {
      return;
    }
    gathering = true;
    parts.gatherMetrics();
  }

  /** The metrics it asked for: decides, and queues the decisions. */
  void onMetrics(JobMetrics m) {
    gathering = false;
    if (!job.running()) {
      return;
    }
    int rollbacks = attempts.rollbacks();
    boolean steady =
        pending.isEmpty()
            && !parts.reconfiguring()
            && !attempts.recovering()
            && rollbacks == rollbacksSeen;
    rollbacksSeen = rollbacks;
    LoadSample sample = LoadSamples.of(plan, state.deployment(), m, !steady);
    for (AutoscalerPolicy.Action a : policy.decide(sample)) {
      AutoscalerDecision d = a.decision();
      out.log()
          .info(
              "job {}: autoscaler: {} '{}' {} -> {}: {}",
              out.jobId(),
              d.kind(),
              d.operator(),
              d.fromParallelism(),
              d.toParallelism(),
              d.reason());
      switch (d.kind()) {
        case SCALE_OUT -> scaleOuts++;
        case SCALE_IN -> scaleIns++;
        case REBALANCE -> rebalances++;
      }
      Change change =
          d.kind() == AutoscalerDecision.Kind.REBALANCE
              ? new Change.Rebalance(d.operator(), a.placement())
              : new Change.Rescale(d.operator(), d.toParallelism(), a.placement());
      Pending p = new Pending(d, out.now());
      pending.add(p);
      keep(d);
      parts.reconfigure(new JobInput.Reconfigure(change, p));
    }
  }

  /** The outcome of decision {@code p}'s reconfiguration. */
  void onOutcome(Pending p, JobReply.Outcome outcome) {
    pending.remove(p);
    String text =
        outcome instanceof JobReply.Completed
            ? "completed in " + (out.now() - p.submittedMillis()) + " ms"
            : "refused: " + ((JobReply.Rejected) outcome).reason();
    out.log()
        .info(
            "job {}: autoscaler: {} '{}' {}",
            out.jobId(),
            p.decision().kind(),
            p.decision().operator(),
            text);
    decisions.replaceAll(d -> d == p.decision() ? d.withOutcome(text) : d);
  }

  private void keep(AutoscalerDecision d) {
    decisions.add(d);
    while (decisions.size() > AutoscalerStatus.KEPT) {
      decisions.remove(0);
    }
  }

  AutoscalerStatus status() {
    if (policy == null) {
      return AutoscalerStatus.OFF;
    }
    return new AutoscalerStatus(
        true, policy.evaluations(), List.copyOf(decisions), scaleOuts, scaleIns, rebalances);
  }
}
