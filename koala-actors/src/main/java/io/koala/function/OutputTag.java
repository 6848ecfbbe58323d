package io.koala.function;

import io.koala.dataflow.Stage;
import java.util.Objects;

/**
 * Names a side output of an operator: a second stream, such as the late records of a window
 * operator, read with {@link Stage#sideOutput(OutputTag)}.
 */
public record OutputTag<T>(String name) {
  public OutputTag {
    Objects.requireNonNull(name, "side output name");
  }
}
