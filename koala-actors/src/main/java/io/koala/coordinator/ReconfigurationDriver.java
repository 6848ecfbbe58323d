package io.koala.coordinator;

import io.koala.coordinator.EpochDriver.Done;
import io.koala.coordinator.EpochDriver.Effect;
import io.koala.coordinator.EpochDriver.EpochReport;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.ReconfigurationProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.IntUnaryOperator;

/**
 * Carries out one reconfiguration request as one epoch, or, for a {@linkplain
 * ReconfigurationProtocol#staged() staged} protocol, as a sequence of epochs that each move a few
 * buckets ({@link ReconfigurationPlan#inSteps}); each epoch runs through an {@link EpochDriver}
 * built once the previous one is done (it plans from the job's deployment as that left it). Pure,
 * like the epoch driver; the coordinator and the simulator both drive it. Only the last epoch's
 * {@link Done} comes out, with the report of the whole request: every bucket moved, the tasks
 * before the first epoch and after the last, and the transfer of all of them.
 */
final class ReconfigurationDriver {
  private final long firstEpoch;
  private final OperatorId vertex;
  private final List<ReconfigurationPlan> steps;
  private final JobState state;
  private final IntUnaryOperator placeNew;
  private final ReconfigurationProtocol protocol;
  private final TreeSet<Integer> movedBuckets = new TreeSet<>();
  private EpochMessage.Transfer transferred = EpochMessage.Transfer.NONE;
  private int step;
  private EpochDriver current;

  /**
   * @param firstEpoch the epoch of the first step; step i runs as epoch {@code firstEpoch + i}
   * @param bucketsPerStep the most buckets a step of a staged protocol moves
   * @throws IllegalArgumentException when the operator cannot be reconfigured
   */
  ReconfigurationDriver(
      long firstEpoch,
      OperatorId vertex,
      ReconfigurationPlan plan,
      JobState state,
      IntUnaryOperator placeNew,
      ReconfigurationProtocol protocol,
      int bucketsPerStep) {
    this.firstEpoch = firstEpoch;
    this.vertex = vertex;
    this.steps = protocol.staged() ? plan.inSteps(bucketsPerStep) : List.of(plan);
    this.state = state;
    this.placeNew = placeNew;
    this.protocol = protocol;
    this.current = newStep();
  }

  private EpochDriver newStep() {
    return new EpochDriver(firstEpoch + step, vertex, steps.get(step), state, placeNew, protocol);
  }

  /** How many epochs the request takes: the epochs it uses are {@code [firstEpoch, + epochs)}. */
  public int epochs() {
    return steps.size();
  }

  /** The epoch running now. */
  public long epoch() {
    return current.epoch();
  }

  public EpochDriver.Phase phase() {
    return current.phase();
  }

  public OperatorId operator() {
    return vertex;
  }

  /** The tasks the current phase waits for, for diagnostics. */
  public List<TaskId> waitingFor() {
    return current.waitingFor();
  }

  /** Starts the first epoch. */
  public List<Effect> start() {
    return next(current.start());
  }

  /** The new tasks of the current epoch exist. */
  public List<Effect> deployed() {
    return next(current.deployed());
  }

  /** A task reported progress. */
  public List<Effect> on(EpochMessage.Report report) {
    return next(current.on(report));
  }

  /** Passes the current epoch's effects on; its {@link Done} starts the next step, if any. */
  private List<Effect> next(List<Effect> effects) {
    List<Effect> out = new ArrayList<>();
    for (Effect e : effects) {
      if (!(e instanceof Done d)) {
        out.add(e);
        continue;
      }
      EpochReport r = d.report();
      for (int b : r.movedBuckets()) {
        movedBuckets.add(b);
      }
      transferred = transferred.followedBy(r.transferred());
      if (step + 1 < steps.size()) {
        step++;
        current = newStep();
        out.addAll(next(current.start()));
      } else {
        out.add(
            new Done(
                new EpochReport(
                    r.epoch(),
                    r.operator(),
                    movedBuckets.stream().mapToInt(Integer::intValue).toArray(),
                    steps.get(0).tasksBefore(),
                    r.tasksAfter(),
                    transferred)));
      }
    }
    return out;
  }
}
