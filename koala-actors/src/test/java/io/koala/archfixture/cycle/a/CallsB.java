package io.koala.archfixture.cycle.a;

import io.koala.archfixture.cycle.b.CallsA;

/** A planted violation for {@code ArchitectureTest}: half of a package cycle. */
public final class CallsB {
  public CallsA partner() {
    return new CallsA();
  }
}
