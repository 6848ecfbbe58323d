package io.koala.coordinator;

import io.koala.protocol.BucketMove;
import io.koala.routing.PartitionPolicy;
import io.koala.routing.RoutingTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * What one reconfiguration of an operator changes (DESIGN §6.1 step 0): the routing tables before
 * and after, the tasks added and removed, and which buckets move from which sender to which
 * receiver. Pure; built from the live tasks before and after and a {@link PartitionPolicy}.
 *
 * <p>An operator without keyed input owns no buckets: its plan has no routing tables ({@link
 * #before()} and {@link #after()} are null) and no moves, only tasks added and removed.
 */
public final class ReconfigurationPlan {
  private final RoutingTable before;
  private final RoutingTable after;
  private final int[] tasksBefore;
  private final int[] tasksAfter;
  private final List<BucketMove> moves;

  private ReconfigurationPlan(
      RoutingTable before, RoutingTable after, int[] tasksBefore, int[] tasksAfter) {
    this.before = before;
    this.after = after;
    this.tasksBefore = tasksBefore;
    this.tasksAfter = tasksAfter;
    List<BucketMove> m = new ArrayList<>();
    for (int b = 0; before != null && b < before.buckets(); b++) {
      if (before.owner(b) != after.owner(b)) {
        m.add(new BucketMove(b, before.owner(b), after.owner(b)));
      }
    }
    this.moves = List.copyOf(m);
  }

  /**
   * Plans the change from {@code before} (owned by {@code tasksBefore}) to the tasks {@code
   * tasksAfter}, placed by {@code policy}; with {@code before} null (an operator without buckets)
   * only the tasks change and {@code policy} is not used.
   */
  public static ReconfigurationPlan of(
      RoutingTable before, int[] tasksBefore, int[] tasksAfter, PartitionPolicy policy) {
    int[] b = sorted(tasksBefore);
    int[] a = sorted(tasksAfter);
    if (a.length == 0) {
      throw new IllegalArgumentException("an operator needs at least one task");
    }
    if (before == null) {
      return new ReconfigurationPlan(null, null, b, a);
    }
    RoutingTable after = policy.assign(before, a, before.buckets());
    for (int bucket = 0; bucket < before.buckets(); bucket++) {
      if (Arrays.binarySearch(b, before.owner(bucket)) < 0) {
        throw new IllegalArgumentException(
            "bucket "
                + bucket
                + " is owned by task "
                + before.owner(bucket)
                + ", which is not live before the change");
      }
    }
    return new ReconfigurationPlan(before, after, b, a);
  }

  /**
   * Scales an operator whose live tasks are {@code tasksBefore} (routing {@code before}, null
   * without buckets) to {@code parallelism} tasks: new tasks get the next unused indices after
   * {@code highestIndexEverUsed}; a scale-in removes the highest indices.
   */
  public static ReconfigurationPlan rescale(
      RoutingTable before,
      int[] tasksBefore,
      int parallelism,
      int highestIndexEverUsed,
      PartitionPolicy policy) {
    int[] b = sorted(tasksBefore);
    int[] a;
    if (parallelism >= b.length) {
      a = Arrays.copyOf(b, parallelism);
      for (int i = b.length; i < parallelism; i++) {
        a[i] = highestIndexEverUsed + 1 + (i - b.length);
      }
    } else {
      a = Arrays.copyOf(b, parallelism);
    }
    return of(before, b, a, policy);
  }

  /**
   * Moves task {@code task} elsewhere: a new task with index {@code highestIndexEverUsed + 1} takes
   * over all of its buckets (routing {@code before}, null without buckets), and the old one is
   * removed (it stays a holder until drained).
   */
  public static ReconfigurationPlan migrate(
      RoutingTable before, int[] tasksBefore, int task, int highestIndexEverUsed) {
    int[] b = sorted(tasksBefore);
    if (Arrays.binarySearch(b, task) < 0) {
      throw new IllegalArgumentException("task " + task + " is not live: " + Arrays.toString(b));
    }
    int replacement = highestIndexEverUsed + 1;
    int[] owners = before == null ? null : before.toArray();
    for (int i = 0; owners != null && i < owners.length; i++) {
      if (owners[i] == task) {
        owners[i] = replacement;
      }
    }
    TreeSet<Integer> after = new TreeSet<>();
    for (int t : b) {
      if (t != task) {
        after.add(t);
      }
    }
    after.add(replacement);
    int[] a = after.stream().mapToInt(Integer::intValue).toArray();
    return of(before, b, a, owners == null ? null : PartitionPolicy.explicit(owners));
  }

  private static int[] sorted(int[] tasks) {
    int[] s = tasks.clone();
    Arrays.sort(s);
    for (int i = 1; i < s.length; i++) {
      if (s[i] == s[i - 1]) {
        throw new IllegalArgumentException("task " + s[i] + " listed twice");
      }
    }
    return s;
  }

  /**
   * The same change as a sequence of steps that each move at most {@code bucketsPerStep} buckets
   * (the staged protocols' subscales or groups), one epoch each; the last step ends exactly where
   * this plan does. The moves are taken round-robin over the receivers, so every step spreads its
   * buckets over as many receivers as it can. Added tasks join in the first step; a removed task
   * leaves in the step that moves its last bucket.
   *
   * @throws IllegalArgumentException if {@code bucketsPerStep < 1}
   */
  public List<ReconfigurationPlan> inSteps(int bucketsPerStep) {
    if (bucketsPerStep < 1) {
      throw new IllegalArgumentException("buckets per step must be at least 1: " + bucketsPerStep);
    }
    if (moves.size() <= bucketsPerStep) {
      return List.of(this);
    }
    java.util.TreeMap<Integer, java.util.ArrayDeque<BucketMove>> byReceiver =
        new java.util.TreeMap<>();
    for (BucketMove m : moves) {
      byReceiver.computeIfAbsent(m.to(), t -> new java.util.ArrayDeque<>()).add(m);
    }
    List<BucketMove> order = new ArrayList<>();
    while (order.size() < moves.size()) {
      for (java.util.ArrayDeque<BucketMove> q : byReceiver.values()) {
        if (!q.isEmpty()) {
          order.add(q.poll());
        }
      }
    }
    List<ReconfigurationPlan> steps = new ArrayList<>();
    int[] owners = before.toArray();
    int[] tasks = tasksBefore;
    for (int i = 0; i < order.size(); i += bucketsPerStep) {
      RoutingTable from = RoutingTable.of(owners.clone());
      for (BucketMove m : order.subList(i, Math.min(order.size(), i + bucketsPerStep))) {
        owners[m.bucket()] = m.to();
      }
      boolean last = i + bucketsPerStep >= order.size();
      int[] next = tasksAfter;
      if (!last) {
        TreeSet<Integer> live = new TreeSet<>();
        for (int t : tasksAfter) {
          live.add(t);
        }
        for (int o : owners) {
          live.add(o);
        }
        next = live.stream().mapToInt(Integer::intValue).toArray();
      }
      steps.add(
          new ReconfigurationPlan(
              from, last ? after : RoutingTable.of(owners.clone()), tasks, next));
      tasks = next;
    }
    return List.copyOf(steps);
  }

  /** Whether the change changes nothing: no bucket moves, no task is added or removed. */
  public boolean isNoop() {
    return moves.isEmpty() && added().length == 0 && removed().length == 0;
  }

  /** The routing table before, or null for an operator without buckets. */
  public RoutingTable before() {
    return before;
  }

  /** The routing table after, or null for an operator without buckets. */
  public RoutingTable after() {
    return after;
  }

  /** The routing table after as the owner of each bucket; empty for an operator without buckets. */
  public List<Integer> routingAfter() {
    return after == null ? List.of() : Arrays.stream(after.toArray()).boxed().toList();
  }

  /** The bucket moves, by bucket. */
  public List<BucketMove> moves() {
    return moves;
  }

  /** Live tasks before, ascending. */
  public int[] tasksBefore() {
    return tasksBefore.clone();
  }

  /** Live tasks after, ascending. */
  public int[] tasksAfter() {
    return tasksAfter.clone();
  }

  /** Tasks that exist only after. */
  public int[] added() {
    return Arrays.stream(tasksAfter).filter(t -> Arrays.binarySearch(tasksBefore, t) < 0).toArray();
  }

  /** Tasks that exist only before (they stay holders of their state until drained). */
  public int[] removed() {
    return Arrays.stream(tasksBefore).filter(t -> Arrays.binarySearch(tasksAfter, t) < 0).toArray();
  }

  /** Tasks losing buckets. */
  public int[] senders() {
    return moves.stream().mapToInt(BucketMove::from).distinct().sorted().toArray();
  }

  /** Tasks gaining buckets. */
  public int[] receivers() {
    return moves.stream().mapToInt(BucketMove::to).distinct().sorted().toArray();
  }

  /** The moves out of {@code task}. */
  public List<BucketMove> movesFrom(int task) {
    return moves.stream().filter(m -> m.from() == task).toList();
  }

  /** The moves into {@code task}. */
  public List<BucketMove> movesTo(int task) {
    return moves.stream().filter(m -> m.to() == task).toList();
  }

  @Override
  public String toString() {
    return "ReconfigurationPlan("
        + Arrays.toString(tasksBefore)
        + " → "
        + Arrays.toString(tasksAfter)
        + ", "
        + moves.size()
        + " buckets move)";
  }
}
