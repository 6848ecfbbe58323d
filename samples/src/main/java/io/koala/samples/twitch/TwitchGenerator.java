package io.koala.samples.twitch;

import io.koala.connector.GeneratorFunction;
import io.koala.samples.GeneratorArgs;
import io.koala.samples.RecordRandom;
import java.util.SplittableRandom;

/**
 * A Twitch-shaped stream of viewers entering and leaving streams (WORKLOADS.md), record {@code i} a
 * pure function of {@code (i, seed)}, over streamers {@code 0 .. keys-1}:
 *
 * <ul>
 *   <li><b>warm-up</b>, records {@code 0 .. keys-1}: record {@code i} is a viewer entering the
 *       stream of streamer {@code i}, so once they are processed every streamer has state;
 *   <li><b>afterwards</b>: the streamer is Zipf-distributed over the active streamers {@code 0 ..
 *       activeKeys-1} (exponent {@value #ZIPF_EXPONENT}: streamer {@code r} is the {@code r+1}-th
 *       most watched), the viewer uniform over {@value #USERS} users; half the events are a viewer
 *       leaving after a session of 10 to 240 minutes in 10-minute steps.
 * </ul>
 *
 * <p>Event time advances by {@code 1 / eventsPerSecond} s per record from {@code baseTimeMillis}.
 * The real stream's diurnal rate comes from the source's rate schedule. Immutable and thread-safe
 * (the Zipf table is computed once, {@code 8 × activeKeys} bytes).
 */
public final class TwitchGenerator implements GeneratorFunction<ViewerEvent> {
  /** Skew of the streamers' popularity. */
  public static final double ZIPF_EXPONENT = 0.8;

  /** Distinct viewers. */
  public static final long USERS = 10_000_000L;

  private final long keys;
  private final long activeKeys;
  private final long baseTimeMillis;
  private final double eventsPerMilli;
  private final double[] cumulative; // cumulative[r]: P(rank ≤ r)

  /**
   * @param keys streamers in total; the warm-up has one record per streamer
   * @param activeKeys the streamers watched after the warm-up, in {@code [1, keys]}
   * @param eventsPerSecond event-time rate of the records, positive
   */
  public TwitchGenerator(long keys, long activeKeys, long baseTimeMillis, double eventsPerSecond) {
    GeneratorArgs.check(keys, activeKeys, GeneratorArgs.MAX_TABLED_KEYS, eventsPerSecond);
    this.keys = keys;
    this.activeKeys = activeKeys;
    this.baseTimeMillis = baseTimeMillis;
    this.eventsPerMilli = eventsPerSecond / 1000.0;
    this.cumulative = new double[(int) activeKeys];
    double sum = 0;
    for (int r = 0; r < cumulative.length; r++) {
      sum += Math.pow(r + 1, -ZIPF_EXPONENT);
      cumulative[r] = sum;
    }
    for (int r = 0; r < cumulative.length; r++) {
      cumulative[r] /= sum;
    }
  }

  /** The streamer of record {@code index}. */
  public long streamerOf(long index, long seed) {
    if (index < keys) {
      return index;
    }
    return rank(random(index, seed).nextDouble());
  }

  private long rank(double u) {
    int lo = 0;
    int hi = cumulative.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cumulative[mid] < u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  @Override
  public ViewerEvent generate(long index, long seed) {
    long time = baseTimeMillis + (long) (index / eventsPerMilli);
    SplittableRandom r = random(index, seed);
    if (index < keys) {
      return new ViewerEvent(r.nextLong(USERS), index, streamerName(index), time, true, 0);
    }
    long streamer = rank(r.nextDouble());
    long user = r.nextLong(USERS);
    boolean enter = r.nextBoolean();
    int watched = enter ? 0 : 10 * (1 + r.nextInt(24));
    return new ViewerEvent(user, streamer, streamerName(streamer), time, enter, watched);
  }

  /** The name of streamer {@code streamerId}, as its events carry it: {@code "streamer-<id>"}. */
  public static String streamerName(long streamerId) {
    return "streamer-" + streamerId;
  }

  private static SplittableRandom random(long index, long seed) {
    return RecordRandom.of(index, seed);
  }
}
