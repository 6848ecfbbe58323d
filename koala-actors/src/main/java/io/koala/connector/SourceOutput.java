package io.koala.connector;

/** Where a {@link SourceReader} emits: one {@link SplitOutput} per split. */
@FunctionalInterface
public interface SourceOutput<T> {
  /**
   * The output of split {@code split}, created on first use; a reader asks once per split and keeps
   * it. The source's watermark is the least over its splits' (ended and idle ones aside).
   */
  SplitOutput<T> split(String split);
}
