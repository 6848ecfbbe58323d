package io.koala.samples.borg;

import io.koala.connector.GeneratorFunction;
import io.koala.samples.GeneratorArgs;
import io.koala.samples.RecordRandom;
import io.koala.samples.WeightedKeys;
import java.util.SplittableRandom;

/**
 * A stream of task events shaped like Google's Borg cluster trace (WORKLOADS.md, Borg resource
 * monitoring), record {@code i} a pure function of {@code (i, seed)}, over the (job, event type)
 * key ids {@code 0 .. keys-1}, key {@code k} being job {@code k / 9} and type {@code k mod 9}:
 *
 * <ul>
 *   <li><b>warm-up</b>, records {@code 0 .. keys-1}: record {@code i} is an event of key {@code i},
 *       so once they are processed every key has state;
 *   <li><b>afterwards</b>: the key is drawn among the active keys {@code 0 .. activeKeys-1} in
 *       proportion to its job's task count times its type's {@linkplain BorgEventType#share()
 *       share}: jobs with many tasks have many events.
 * </ul>
 *
 * <p>A job's task count is heavy-tailed (Pareto, α = {@value #TASKS_ALPHA}, at most {@value
 * #MAX_TASKS}), its priority (0–11) and its base CPU, RAM and disk requests (log-uniform) are
 * functions of the job id alone ({@link #tasksOf}), so the key weights do not depend on the seed.
 * Each event's task index is uniform in the job's tasks, its machine uniform over {@value
 * #MACHINES}, and its requests the job's within ±10%. Event time advances by {@code 1 /
 * eventsPerSecond} s per record from {@code baseTimeMillis}. Immutable and thread-safe (the weight
 * table is computed once, {@code 8 × activeKeys} bytes).
 */
public final class BorgGenerator implements GeneratorFunction<TaskEvent> {
  /** Tail exponent of the tasks per job. */
  public static final double TASKS_ALPHA = 1.1;

  /** Most tasks in a job. */
  public static final int MAX_TASKS = 10_000;

  /** Machines of the cell. */
  public static final int MACHINES = 12_500;

  private static final long TASKS_SALT = 0x7A5C_0001L;
  private static final long JOB_SALT = 0x7A5C_0002L;

  private final long keys;
  private final long baseTimeMillis;
  private final double eventsPerMilli;
  private final WeightedKeys active;

  /**
   * @param keys (job, event type) key ids in total; the warm-up has one record per key
   * @param activeKeys the keys with events after the warm-up, in {@code [1, keys]}
   * @param eventsPerSecond event-time rate of the records, positive
   */
  public BorgGenerator(long keys, long activeKeys, long baseTimeMillis, double eventsPerSecond) {
    GeneratorArgs.check(keys, activeKeys, GeneratorArgs.MAX_TABLED_KEYS, eventsPerSecond);
    this.keys = keys;
    this.baseTimeMillis = baseTimeMillis;
    this.eventsPerMilli = eventsPerSecond / 1000.0;
    int types = BorgEventType.count();
    this.active =
        new WeightedKeys(
            (int) activeKeys, k -> tasksOf(k / types) * BorgEventType.of(k % types).share());
  }

  /** The key id of ({@code jobId}, {@code type}). */
  public static long keyOf(long jobId, BorgEventType type) {
    return jobId * BorgEventType.count() + type.ordinal();
  }

  /** The tasks of job {@code jobId}: Pareto-distributed, 1 to {@value #MAX_TASKS}. */
  public static int tasksOf(long jobId) {
    double u = 1.0 - RecordRandom.of(jobId, TASKS_SALT).nextDouble(); // (0, 1]
    return (int) Math.min(MAX_TASKS, Math.floor(Math.pow(u, -1.0 / TASKS_ALPHA)));
  }

  /** The key id of record {@code index}. */
  public long keyOf(long index, long seed) {
    if (index < keys) {
      return index;
    }
    return active.sample(RecordRandom.of(index, seed).nextDouble());
  }

  /** The probability that a record after the warm-up has key {@code key}. */
  public double probability(long key) {
    return key < active.size() ? active.probability((int) key) : 0;
  }

  @Override
  public TaskEvent generate(long index, long seed) {
    SplittableRandom r = RecordRandom.of(index, seed);
    long key = index < keys ? index : active.sample(r.nextDouble());
    long job = key / BorgEventType.count();
    BorgEventType type = BorgEventType.of((int) (key % BorgEventType.count()));
    SplittableRandom j = RecordRandom.of(job, JOB_SALT);
    int priority = j.nextInt(12);
    double cpu = logUniform(j, 1e-4, 0.5);
    double ram = logUniform(j, 1e-4, 0.5);
    double disk = logUniform(j, 1e-5, 0.05);
    return new TaskEvent(
        baseTimeMillis + (long) (index / eventsPerMilli),
        job,
        r.nextInt(tasksOf(job)),
        r.nextInt(MACHINES),
        type,
        priority,
        jitter(r, cpu),
        jitter(r, ram),
        jitter(r, disk));
  }

  private static double logUniform(SplittableRandom r, double lo, double hi) {
    return lo * Math.exp(r.nextDouble() * Math.log(hi / lo));
  }

  private static double jitter(SplittableRandom r, double value) {
    return Math.min(1.0, value * (0.9 + 0.2 * r.nextDouble()));
  }
}
