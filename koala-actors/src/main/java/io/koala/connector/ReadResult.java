package io.koala.connector;

/** What {@link SourceReader#read} found, and so when the task reads again. */
public final class ReadResult {
  private enum Kind {
    MORE,
    WAIT,
    END
  }

  /** More is available: read again at once (after the task processed what was read). */
  public static final ReadResult MORE = new ReadResult(Kind.MORE, 0);

  /** Every split has ended: the source's input is complete. */
  public static final ReadResult END = new ReadResult(Kind.END, 0);

  private final Kind kind;
  private final long retryAtMillis;

  private ReadResult(Kind kind, long retryAtMillis) {
    this.kind = kind;
    this.retryAtMillis = retryAtMillis;
  }

  /**
   * Nothing is available now; read again at {@code atMillis} (task time; {@link Long#MAX_VALUE}: no
   * time known) or when the reader's waker is called, whichever comes first. The task reads again
   * at least once a second.
   */
  public static ReadResult waitUntil(long atMillis) {
    return new ReadResult(Kind.WAIT, atMillis);
  }

  public boolean more() {
    return kind == Kind.MORE;
  }

  public boolean ended() {
    return kind == Kind.END;
  }

  /** For {@link #waitUntil}: when to read again. */
  public long retryAtMillis() {
    return retryAtMillis;
  }

  @Override
  public String toString() {
    return kind == Kind.WAIT ? "waitUntil(" + retryAtMillis + ")" : kind.name();
  }
}
