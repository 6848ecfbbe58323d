package io.koala.connector;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The library's JSON writer (Jackson): sink output ({@link JsonEncoder#jackson()}), the results the
 * command line prints and the node endpoints' bodies. Records become objects of their components,
 * maps objects, collections and arrays (primitive ones too) lists; numbers, strings, booleans,
 * enums (their name) and null as Jackson writes them; NaN and infinities as strings.
 */
public final class Json {
  private static final ObjectMapper MAPPER = JsonMapper.builder().build();

  private Json() {}

  /** The mapper behind {@link #encode}; shared and thread-safe. Do not reconfigure it. */
  static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * The JSON text of {@code value}, on one line.
   *
   * @throws IllegalArgumentException naming the value's class when Jackson cannot write it (a class
   *     with no public fields or getters, a cycle)
   */
  public static String encode(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          cannotWrite(value, e) + " (give it public getters or fields, or make it a record)", e);
    }
  }

  /** Why Jackson could not write {@code value}, naming its class. */
  static String cannotWrite(Object value, JsonProcessingException e) {
    return "cannot write a " + value.getClass().getName() + " as JSON: " + e.getOriginalMessage();
  }
}
