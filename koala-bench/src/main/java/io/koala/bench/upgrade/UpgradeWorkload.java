package io.koala.bench.upgrade;

/**
 * The upgrade experiment's input and versions.
 *
 * @param records orders in the input
 * @param customers distinct customers (keys)
 * @param rate orders per second the source offers
 * @param savepointAt the fraction of the orders version 1 has processed when it stops with a
 *     savepoint
 * @param v2Parallelism the parallelism of version 2's totals (version 1 runs two tasks)
 */
public record UpgradeWorkload(
    long records, int customers, double rate, double savepointAt, int v2Parallelism) {
  public UpgradeWorkload {
    if (records < 1 || customers < 1 || rate <= 0) {
      throw new IllegalArgumentException("records, customers and rate must be positive");
    }
    if (savepointAt <= 0 || savepointAt >= 1) {
      throw new IllegalArgumentException("savepointAt must be in (0, 1), got " + savepointAt);
    }
    if (v2Parallelism < 1) {
      throw new IllegalArgumentException("v2Parallelism must be positive");
    }
  }
}
