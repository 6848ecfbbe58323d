package io.koala.task.state;

import io.koala.serialization.FieldType;
import java.util.List;
import java.util.Objects;

/**
 * What an operator declared of one of its states at open, as the task's store records it ({@link
 * StateDeclarations}).
 *
 * @param operator the operator's name
 * @param state the state's name
 * @param kind {@link KeyedStateBackend#VALUE}, {@link KeyedStateBackend#LIST}, {@link
 *     KeyedStateBackend#MAP} or {@link KeyedStateBackend#NAMESPACED}
 * @param valueClass the class name of the values (a list's elements, a map's values), or {@code
 *     null} when the state was declared with a codec
 * @param mapKeyClass the class name of a map state's keys, else {@code null}
 * @param fields the value class's fields when its values are written field by field, else {@code
 *     null}
 */
public record StateDeclaration(
    String operator,
    String state,
    String kind,
    String valueClass,
    String mapKeyClass,
    List<FieldType> fields) {
  /** Checks the names and kind are given; copies the fields. */
  public StateDeclaration {
    Objects.requireNonNull(operator, "operator");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(kind, "kind");
    fields = fields == null ? null : List.copyOf(fields);
  }
}
