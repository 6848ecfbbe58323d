package io.koala.keys;

import io.koala.coordinator.Retirement;
import io.koala.protocol.DrainSettings;
import io.koala.protocol.StateMessage.Drain;
import io.koala.protocol.StateMessage.DrainChunk;
import io.koala.store.WriteTxn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * An owner's side of a forced full transfer (DESIGN §6.5): the owner pulls everything it still
 * references at a <b>retiring holder</b> (a task a scale-in or migration retired), whichever
 * reconfiguration created the reference, so that the holder can be terminated.
 *
 * <p>For every owned bucket and every retiring holder of it (its default holder until drained, and
 * every holder an entry names), the owner drives a cursor over the holder's store keys of the
 * bucket: each {@link Drain} asks for the next keys, the {@link DrainChunk} answers with their
 * state, and the owner installs a key only if it resolves to exactly that holder at that moment
 * (K4, {@link KeyLocations#acceptsDrained}). One scan therefore covers the default holder's keys
 * and the keys entries name alike. Keys an entry still names once the scan has ended are fetched
 * explicitly. At most one drain request is outstanding per holder; it is piggybacked on a fetch to
 * that holder ({@link DrainSettings#piggybackKeys} keys) or sent alone by a timer, with {@link
 * DrainSettings#idleChunkKeys} keys when the task processed nothing since the last tick, so cold
 * buckets drain too. The default holder's cursor lives in the lookup table and ships with it; the
 * others restart at a new owner (the scan is idempotent).
 *
 * <p>The owner reports which retiring holders it still references; the coordinator terminates a
 * holder once every owner reports none ({@link Retirement}). Pure; used inside the owner's thread.
 */
public final class Draining {

  /** The request outstanding to a holder. */
  private record Outstanding(long requestId, int bucket) {}

  private long version = -1;
  private Set<Integer> retiring = Set.of();
  private final Set<Integer> pulled = new HashSet<>(); // holders drained at once (eager)
  private DrainSettings settings;
  private final Map<Integer, Outstanding> outstanding = new HashMap<>(); // holder → request
  private final Map<Long, byte[]> cursors = new HashMap<>(); // non-default (bucket, holder)
  private final Set<Long> scanned = new HashSet<>(); // (bucket, holder) whose scan ended
  private long reportedVersion = -1;
  private Set<Integer> reported = Set.of();

  /**
   * The coordinator published the retiring holders as of {@code version}; older publications are
   * ignored.
   */
  public void retiring(long version, Set<Integer> holders, DrainSettings settings) {
    if (version < this.version) {
      return;
    }
    this.version = version;
    this.retiring = Set.copyOf(holders);
    this.settings = settings;
  }

  /**
   * Drain {@code holder} now, whether or not it retires: the eager protocol pulls all state of the
   * buckets an epoch moves from their old owner right after the hand-over.
   */
  public void pull(int holder) {
    pulled.add(holder);
  }

  /** The settings last published, or {@code null} before any. */
  public DrainSettings settings() {
    return settings;
  }

  /** Whether {@code holder} is retiring. */
  public boolean isRetiring(int holder) {
    return retiring.contains(holder);
  }

  /** The retiring holders this owner still references, in ascending order. */
  public Set<Integer> referenced(KeyLocations locations) {
    Set<Integer> out = new TreeSet<>();
    if (retiring.isEmpty()) {
      return out;
    }
    for (int b : locations.movedBuckets()) {
      for (int h : locations.holdersOf(b)) {
        if (retiring.contains(h)) {
          out.add(h);
        }
      }
    }
    return out;
  }

  /**
   * The next drain to ask {@code holder} for under request {@code requestId}, or {@code null} when
   * a request to it is outstanding, it is neither retiring nor {@linkplain #pull pulled}, or every
   * scan of it has ended.
   */
  public Drain next(KeyLocations locations, int holder, long requestId, int maxKeys) {
    if (!(retiring.contains(holder) || pulled.contains(holder))
        || outstanding.containsKey(holder)) {
      return null;
    }
    for (int b : locations.movedBuckets()) {
      if (locations.holdersOf(b).contains(holder) && !scanned.contains(pair(b, holder))) {
        byte[] cursor =
            locations.defaultHolder(b) == holder
                ? locations.drainCursor(b)
                : cursors.get(pair(b, holder));
        outstanding.put(holder, new Outstanding(requestId, b));
        return new Drain(b, cursor, maxKeys);
      }
    }
    return null;
  }

  /**
   * Buckets whose scan of {@code holder} has ended while entries still name it: the caller fetches
   * those keys explicitly ({@link KeyLocations#entriesNaming}).
   */
  public List<Integer> leftovers(KeyLocations locations, int holder) {
    List<Integer> out = new ArrayList<>();
    for (int b : locations.movedBuckets()) {
      if (scanned.contains(pair(b, holder)) && locations.holdersOf(b).contains(holder)) {
        out.add(b);
      }
    }
    return out;
  }

  /**
   * A chunk answering request {@code requestId} arrived from {@code holder}: whether to install its
   * keys (it answers the request outstanding to that holder, for a bucket still owned).
   */
  public boolean accept(KeyLocations locations, long requestId, int holder, DrainChunk chunk) {
    Outstanding o = outstanding.get(holder);
    if (o == null || o.requestId != requestId) {
      return false; // the bucket left (or came back) since: the request was forgotten
    }
    outstanding.remove(holder);
    return o.bucket == chunk.bucket() && locations.owns(chunk.bucket());
  }

  /** The accepted chunk's keys are installed: moves the scan of its bucket at {@code holder} on. */
  public void advanced(WriteTxn txn, KeyLocations locations, int holder, DrainChunk chunk) {
    int b = chunk.bucket();
    long p = pair(b, holder);
    if (locations.defaultHolder(b) == holder) {
      locations.drainedTo(txn, b, chunk.next(), chunk.end());
    } else if (chunk.next() != null) {
      cursors.put(p, chunk.next());
    }
    if (chunk.end()) {
      scanned.add(p);
      cursors.remove(p);
    }
  }

  /**
   * {@code bucket} was handed over or taken over: forgets its scans here (a late chunk is then
   * discarded; a new owner resumes the default holder's scan from the shipped cursor).
   */
  public void bucketChanged(int bucket) {
    outstanding.values().removeIf(o -> o.bucket == bucket);
    cursors.keySet().removeIf(p -> (int) (p >>> 32) == bucket);
    scanned.removeIf(p -> (int) (p >>> 32) == bucket);
  }

  /**
   * The references to report to the coordinator, if the set or the publication changed since the
   * last report; else {@code null}. A retiring holder is referenced while the lookup table names it
   * or a request to it awaits its reply ({@code awaited}: a fetch or a drain the table no longer
   * needs still reaches the holder, which must be there to answer it).
   */
  public Set<Integer> toReport(KeyLocations locations, Set<Integer> awaited) {
    if (version < 0) {
      return null;
    }
    Set<Integer> now = referenced(locations);
    for (int h : awaited) {
      if (retiring.contains(h)) {
        now.add(h);
      }
    }
    if (version == reportedVersion && now.equals(reported)) {
      return null;
    }
    reportedVersion = version;
    reported = now;
    return now;
  }

  /** The publication the last report answered. */
  public long version() {
    return version;
  }

  private static long pair(int bucket, int holder) {
    return ((long) bucket << 32) | (holder & 0xFFFFFFFFL);
  }
}
