package io.koala.apifixture;

import io.koala.apifixture.hidden.Hidden;
import io.koala.apifixture.hidden.HiddenContract;
import io.koala.apifixture.hidden.HiddenException;
import io.koala.protocol.ChannelSettings;
import java.util.List;

/**
 * Leaks planted for {@code io.koala.ApiBoundaryTest}, one in each place of a signature: this class
 * sits in an API package (its package has no {@code @Internal}), and every public or protected
 * member below names a type of an internal package. The members after them do not leak.
 */
public class LeakingApi extends Hidden implements HiddenContract {
  public Hidden field;

  public LeakingApi(Hidden argument) {
    this.field = argument;
  }

  public ChannelSettings returnsAnInternalTypeOfKoala() {
    return null;
  }

  public void takes(Hidden h) {}

  public List<Hidden> returnsATypeArgument() {
    return List.of();
  }

  public <T extends Hidden> void hasABound(T t) {}

  public void throwsIt() throws HiddenException {}

  protected Hidden[] returnsAnArray() {
    return new Hidden[0];
  }

  /** Reachable: a public type nested in a public one. */
  public static class Nested {
    public Hidden fromANestedType() {
      return null;
    }
  }

  // ---------------------------------------------------------------- no leaks

  @SuppressWarnings("unused")
  private Hidden privateMember() {
    return null;
  }

  Hidden packagePrivateMember() {
    return null;
  }

  public int usesItInsideOnly() {
    return new Hidden().hashCode();
  }

  private static class PrivateNested {
    @SuppressWarnings("unused")
    public Hidden unreachable() {
      return null;
    }
  }
}
