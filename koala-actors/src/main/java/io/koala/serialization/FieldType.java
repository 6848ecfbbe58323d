package io.koala.serialization;

import java.util.Objects;

/**
 * A field of a state class as its schema records it.
 *
 * @param name the field's (a record's component's) name
 * @param type the field's generic type name, such as {@code long} or {@code
 *     java.util.List<java.lang.String>}
 */
public record FieldType(String name, String type) {
  /** Checks both are given. */
  public FieldType {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
  }
}
