package io.koala.archfixture.cycle.b;

import io.koala.archfixture.cycle.a.CallsB;

/** A planted violation for {@code ArchitectureTest}: the other half of a package cycle. */
public final class CallsA {
  public CallsB partner() {
    return new CallsB();
  }
}
