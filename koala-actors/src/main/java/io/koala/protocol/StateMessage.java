package io.koala.protocol;

import io.koala.keys.KeyLocations;
import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.List;

/**
 * The state plane (DESIGN §4.2, §6.4): requests for the state of keys and their replies. It is
 * independent of data channels and their credits, and holders serve it from read transactions, so a
 * fetch never waits behind data, alignment or backpressure.
 */
public sealed interface StateMessage extends KoalaMessage
    permits StateMessage.Fetch,
        StateMessage.StateReply,
        StateMessage.Release,
        StateMessage.ServiceFetch,
        StateMessage.ServiceWrite,
        StateMessage.ServiceFailed {

  /** A key of a bucket. */
  record KeyRef(int bucket, byte[] key) implements KoalaMessage {
    @Override
    public boolean equals(Object o) {
      return o instanceof KeyRef k && bucket == k.bucket && java.util.Arrays.equals(key, k.key);
    }

    @Override
    public int hashCode() {
      return 31 * bucket + java.util.Arrays.hashCode(key);
    }

    @Override
    public String toString() {
      return "KeyRef(" + bucket + ", " + key.length + " bytes)";
    }
  }

  /**
   * Owner → holder's state server: send me the whole state of these keys (all state ids and
   * namespaces), and, when {@code drain} is not null, the next keys of a bucket the owner is
   * draining from this holder (§6.5; piggybacked on a fetch, or alone when {@code keys} is empty).
   * Idempotent: a repeated request gets the same answer.
   */
  record Fetch(long requestId, TaskId owner, List<KeyRef> keys, Drain drain)
      implements StateMessage {
    public Fetch {
      keys = List.copyOf(keys);
    }
  }

  /**
   * Up to {@code maxKeys} keys of {@code bucket} held here whose store keys come after {@code
   * after} (a cursor the owner drives; {@code null} from the start).
   */
  record Drain(int bucket, byte[] after, int maxKeys) implements KoalaMessage {
    public Drain {
      if (maxKeys < 1) {
        throw new IllegalArgumentException("a drain asks for at least one key, not " + maxKeys);
      }
    }
  }

  /**
   * The answer to a {@link Drain}: the next keys of the bucket with their state, the cursor to
   * continue after, and whether the holder has nothing more of the bucket.
   */
  record DrainChunk(int bucket, List<KeyState> keys, byte[] next, boolean end)
      implements KoalaMessage {
    public DrainChunk {
      keys = List.copyOf(keys);
    }
  }

  /**
   * Holder's state server → owner: the state of the requested keys, and the drained chunk when the
   * fetch asked for one ({@code null} otherwise). A key with no entries is absent at the holder.
   * {@code generation} is the holder's generation of each bucket (see {@link
   * KeyLocations#generation}), echoed in the {@link Release}. {@code unserved} are requested keys
   * left out to keep the reply small; the owner asks for them again.
   */
  record StateReply(
      long requestId, TaskId holder, List<KeyState> keys, DrainChunk chunk, List<KeyRef> unserved)
      implements StateMessage, TaskMessage {
    public StateReply {
      keys = List.copyOf(keys);
      unserved = List.copyOf(unserved);
    }
  }

  /** The state of one key at a holder: its store entries (full store keys and values). */
  record KeyState(KeyRef key, long generation, List<byte[]> storeKeys, List<byte[]> values)
      implements KoalaMessage {
    public KeyState {
      storeKeys = List.copyOf(storeKeys);
      values = List.copyOf(values);
      if (storeKeys.size() != values.size()) {
        throw new IllegalArgumentException("one value per store key");
      }
    }

    public boolean absent() {
      return storeKeys.isEmpty();
    }

    /** Bytes of its store keys and values: what moving it moves. */
    public long bytes() {
      long n = 0;
      for (int i = 0; i < storeKeys.size(); i++) {
        n += storeKeys.get(i).length + values.get(i).length;
      }
      return n;
    }
  }

  /**
   * Owner → holder: the owner has installed its copies of {@code keys}, those of one reply (or,
   * with checkpoints, those a committed checkpoint released; at most {@link #MAX_KEYS}); the holder
   * deletes each copy it still has at the generation it was fetched at, of a bucket it does not own
   * (§6.7, K5), in one transaction.
   */
  record Release(TaskId owner, List<Released> keys) implements StateMessage, TaskMessage {
    /** Keys one release carries at most: a release stays far below the frame size. */
    public static final int MAX_KEYS = 2_048;

    public Release {
      keys = List.copyOf(keys);
      if (keys.isEmpty() || keys.size() > MAX_KEYS) {
        throw new IllegalArgumentException(
            "a release carries 1 to " + MAX_KEYS + " keys, not " + keys.size());
      }
    }

    /** One release per {@link #MAX_KEYS} of {@code keys} (none when it is empty). */
    public static List<Release> of(TaskId owner, List<Released> keys) {
      List<Release> out = new ArrayList<>();
      for (int from = 0; from < keys.size(); from += MAX_KEYS) {
        out.add(new Release(owner, keys.subList(from, Math.min(keys.size(), from + MAX_KEYS))));
      }
      return out;
    }
  }

  /** A key a {@link Release} releases, and the generation its copy was fetched at. */
  record Released(KeyRef key, long generation) {}

  /**
   * Task → remote state service (the {@code remote} backend): {@code fetch}, answered only once the
   * service has applied every write named in {@code barriers} (the writes the keys' earlier owners
   * made before handing their buckets over; they come from other tasks, so nothing else orders them
   * before this read).
   */
  record ServiceFetch(Fetch fetch, List<WriteBarrier> barriers) implements StateMessage {
    public ServiceFetch {
      barriers = List.copyOf(barriers);
    }
  }

  /** The write number {@code seq} of task {@code writer} to a service. */
  record WriteBarrier(TaskId writer, long seq) implements KoalaMessage {}

  /**
   * Task → remote state service: replace the whole state of each key with these entries (none: the
   * key has no state). Writes of one task to one service are numbered from 1 without gaps; a gap
   * means a lost message, and the service answers {@link ServiceFailed}.
   */
  record ServiceWrite(TaskId writer, long seq, List<KeyState> keys) implements StateMessage {
    public ServiceWrite {
      keys = List.copyOf(keys);
    }
  }

  /** Remote state service → task: it cannot serve the task's state any more, and why. */
  record ServiceFailed(String reason) implements StateMessage, TaskMessage {}
}
