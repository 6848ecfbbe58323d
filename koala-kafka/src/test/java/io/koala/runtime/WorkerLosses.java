package io.koala.runtime;

/**
 * Test access, from another module's tests, to {@link KoalaRuntime}'s package-private worker loss
 * (in this package on the test class path only; not shipped).
 */
public final class WorkerLosses {
  private WorkerLosses() {}

  /** Loses worker {@code worker} of an embedded runtime ({@code KoalaRuntime.loseWorker}). */
  public static void lose(KoalaRuntime runtime, int worker) {
    runtime.loseWorker(worker);
  }
}
