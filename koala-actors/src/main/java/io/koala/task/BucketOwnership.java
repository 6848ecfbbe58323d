package io.koala.task;

import io.koala.keys.KeyLocations;
import io.koala.protocol.TaskSetup;
import java.util.Arrays;

/**
 * Which buckets a keyed task owns, and which of those may have keys whose state is at another task
 * (DESIGN §5.3): the per-record answers of its {@link KeyLocations}, kept in two arrays so that a
 * record of a bucket whose state is all here never looks further. Changed only by a hand-over, a
 * state transfer that completes a bucket, and a restore.
 */
final class BucketOwnership {
  private final boolean[] owned;
  private final boolean[] elsewhere; // owned, and some key's state may be at another task

  /** The buckets {@code setup}'s routing gives the task at deployment, all of their state here. */
  BucketOwnership(TaskSetup setup) {
    owned = new boolean[setup.buckets()];
    elsewhere = new boolean[setup.buckets()];
    for (int b = 0; b < owned.length; b++) {
      owned[b] = setup.inputRouting().get(b) == setup.task().index();
    }
  }

  /** The number of buckets of the operator. */
  int buckets() {
    return owned.length;
  }

  boolean owns(int bucket) {
    return owned[bucket];
  }

  /** Whether owned {@code bucket} may have keys whose state is at another task. */
  boolean elsewhere(int bucket) {
    return elsewhere[bucket];
  }

  /** The owned buckets, ascending. */
  int[] owned() {
    int[] out = new int[owned.length];
    int n = 0;
    for (int b = 0; b < owned.length; b++) {
      if (owned[b]) {
        out[n++] = b;
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** The task resumes from a checkpoint: its buckets are those {@code locations} says it owns. */
  void restore(KeyLocations locations) {
    for (int b = 0; b < owned.length; b++) {
      owned[b] = locations.owns(b);
      elsewhere[b] = owned[b] && !locations.isFullyLocal(b);
    }
  }

  /** {@code bucket} is handed over. */
  void gaveUp(int bucket) {
    owned[bucket] = false;
    elsewhere[bucket] = false;
  }

  /**
   * {@code bucket} is taken over ({@code fullyLocal}: all of its state is here).
   *
   * @return whether some of its keys' state is elsewhere
   */
  boolean tookOver(int bucket, boolean fullyLocal) {
    owned[bucket] = true;
    elsewhere[bucket] = !fullyLocal;
    return elsewhere[bucket];
  }

  /** State of owned {@code bucket} arrived here ({@code fullyLocal}: now all of it). */
  void arrived(int bucket, boolean fullyLocal) {
    elsewhere[bucket] = !fullyLocal;
  }
}
