package io.koala.apifixture.hidden;

/** A type of an internal package. */
public class Hidden {
  /** An internal type may name internal types: the rule concerns API packages only. */
  public Hidden self() {
    return this;
  }
}
