package io.koala.task;

import io.koala.keys.Draining;
import io.koala.keys.KeyLocations;
import io.koala.keys.StateServing;
import io.koala.plan.TaskId;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateMessage.KeyRef;
import io.koala.protocol.StateServerAddress;
import io.koala.protocol.StateServiceAddress;
import io.koala.protocol.TaskSetup;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a task asks its holders for, in which requests, and how long the answers take: a batch's
 * keys of one holder go out at once, in as many requests as the replies need to carry them whole,
 * up to {@link #FETCH_WINDOW} (DESIGN §4.2: a burst of keys costs one round trip, not one per
 * reply); a drain of a retiring holder rides on the first (§6.5). The time from sending a request
 * to running its reply is recorded per holder.
 */
final class StateRequests {
  /** Requests one batch sends a holder at most; a reply leaves out the keys it cannot carry. */
  static final int FETCH_WINDOW = 16;

  /** The state size of a key assumed before any was installed. */
  private static final long ASSUMED_KEY_BYTES = 1_024;

  private final TaskSetup setup;
  private final TaskHost host;
  private final TaskMetrics metrics;
  private final BatchClock clock;
  private final RemoteStateClient remote;
  private final Draining draining;
  private long nextFetchId;
  // requests sent and not answered yet: to whom, and when (for the round-trip histograms)
  private final Map<Long, long[]> outstanding = new HashMap<>();

  StateRequests(
      TaskSetup setup,
      TaskHost host,
      TaskMetrics metrics,
      BatchClock clock,
      RemoteStateClient remote,
      Draining draining) {
    this.setup = setup;
    this.host = host;
    this.metrics = metrics;
    this.clock = clock;
    this.remote = remote;
    this.draining = draining;
  }

  /**
   * Sends {@code fetches}, the keys to fetch by holder; with {@code drainKeys} > 0, the first
   * request to a retiring holder also asks for that many keys it drains.
   */
  void send(Map<Integer, List<KeyRef>> fetches, KeyLocations locations, int drainKeys) {
    int perRequest = keysPerRequest();
    for (Map.Entry<Integer, List<KeyRef>> f : fetches.entrySet()) {
      int holder = f.getKey();
      List<KeyRef> keys = f.getValue();
      // a state service reads where the state lives: one request, as many keys as it likes
      int size =
          StateServiceAddress.isService(holder)
              ? keys.size()
              : Math.max(perRequest, ceilDiv(keys.size(), FETCH_WINDOW));
      for (int from = 0; from < keys.size(); from += size) {
        long id = nextFetchId++;
        StateMessage.Drain d =
            drainKeys > 0 ? draining.next(locations, holder, id, drainKeys) : null;
        List<KeyRef> part = List.copyOf(keys.subList(from, Math.min(keys.size(), from + size)));
        send(new StateMessage.Fetch(id, setup.task(), part, d), holder);
        clock.fetchSent(id);
      }
    }
  }

  /** Asks {@code holder} for the next chunk this task drains from it, if none is asked for. */
  void sendDrain(int holder, KeyLocations locations, int keysPerChunk) {
    long id = nextFetchId;
    StateMessage.Drain d = draining.next(locations, holder, id, keysPerChunk);
    if (d != null) {
      nextFetchId++;
      send(new StateMessage.Fetch(id, setup.task(), List.of(), d), holder);
    }
  }

  /** The holders a request was sent to whose reply has not run yet. */
  Set<Integer> awaited() {
    Set<Integer> out = new HashSet<>();
    for (long[] sent : outstanding.values()) {
      out.add((int) sent[0]);
    }
    return out;
  }

  /** Requests sent to {@code holder} whose reply has not run yet. */
  int outstandingTo(int holder) {
    int n = 0;
    for (long[] sent : outstanding.values()) {
      if (sent[0] == holder) {
        n++;
      }
    }
    return n;
  }

  /** The reply to request {@code requestId} has run: its round trip is recorded. */
  void answered(long requestId) {
    long[] sent = outstanding.remove(requestId);
    if (sent != null) {
      metrics.fetchRoundTrip((int) sent[0], host.nanoTime() - sent[1]);
    }
  }

  /**
   * Keys one request asks for: about three quarters of what a reply carries ({@link
   * StateServing#CHUNK_BYTES}) at the mean size of the keys installed so far ({@link
   * #ASSUMED_KEY_BYTES} before the first), so a reply rarely leaves keys out.
   */
  int keysPerRequest() {
    long keys = metrics.keysFetched + metrics.keysDrained;
    long mean = keys == 0 ? ASSUMED_KEY_BYTES : Math.max(1, metrics.stateBytesFetched / keys);
    return (int) Math.max(1, StateServing.CHUNK_BYTES * 3L / 4 / mean);
  }

  private static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }

  /** Sends {@code fetch} to the state server of {@code holder}; a drain alone is no fetch. */
  private void send(StateMessage.Fetch fetch, int holder) {
    outstanding.put(fetch.requestId(), new long[] {holder, host.nanoTime()});
    if (StateServiceAddress.isService(holder)) {
      remote.fetch(fetch, holder);
      return; // a read of where the state lives, not a transfer
    }
    host.send(new StateServerAddress(new TaskId(setup.task().operator(), holder)), fetch);
    if (!fetch.keys().isEmpty()) {
      metrics.fetchRequests++;
    }
  }
}
