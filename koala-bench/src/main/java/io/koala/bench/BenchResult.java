package io.koala.bench;

import io.koala.connector.Json;
import java.util.LinkedHashMap;
import java.util.Map;

/** The figures of one benchmark run, printed as one JSON line. */
public final class BenchResult {
  private final Map<String, Object> fields = new LinkedHashMap<>();

  public BenchResult put(String name, Object value) {
    fields.put(name, value);
    return this;
  }

  public Object get(String name) {
    return fields.get(name);
  }

  public String toJson() {
    return Json.encode(fields);
  }

  /** Human-readable lines, one field per line. */
  public String toText() {
    StringBuilder sb = new StringBuilder();
    fields.forEach((k, v) -> sb.append(String.format("%-22s %s%n", k, v)));
    return sb.toString();
  }
}
