package io.koala.connector;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.koala.function.Collector;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The built-in sinks behind {@link SinkSpec}'s factories. */
final class Sinks {
  private Sinks() {}

  private record Named<T>(String name, Opener<T> opener) implements SinkSpec<T> {
    Named {
      Objects.requireNonNull(name, "name");
    }

    @Override
    public SinkWriter<T> open(SinkContext ctx) throws Exception {
      return opener.open(ctx);
    }
  }

  @FunctionalInterface
  private interface Opener<T> {
    SinkWriter<T> open(SinkContext ctx) throws Exception;
  }

  static <T> SinkSpec<T> collecting(String name) {
    return new Named<>(
        name,
        ctx -> {
          Collector<Object> results = ctx.clientResults();
          return (value, ts) -> results.collect(value);
        });
  }

  static <T> SinkSpec<T> discarding(String name) {
    return new Named<>(name, ctx -> (value, ts) -> {});
  }

  static <T> SinkSpec<T> logging(String name) {
    return new Named<>(
        name,
        ctx -> {
          Logger log = LoggerFactory.getLogger("io.koala.sink." + name);
          int task = ctx.taskIndex();
          return (value, ts) -> log.info("{}[{}] {}", name, task, value);
        });
  }

  static <T> SinkSpec<T> forEach(String name, SinkFunction<? super T> fn) {
    Objects.requireNonNull(fn, "fn");
    return new Named<>(name, ctx -> (value, ts) -> fn.accept(value));
  }

  static <T> SinkSpec<T> jsonLines(String name, Path directory, JsonEncoder<? super T> encoder) {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(encoder, "encoder");
    return new Named<>(
        name,
        ctx -> {
          if (ctx.checkpointing()) {
            return JsonLinesParts.open(
                directory, name, ctx.taskIndex(), ctx.restoredCheckpoint(), encoder);
          }
          Files.createDirectories(directory);
          Path file = directory.resolve(name + "-" + ctx.taskIndex() + ".jsonl");
          BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
          return new SinkWriter<T>() {
            @Override
            public void write(T value, long timestamp) throws Exception {
              out.append(jsonLine(name, encoder, value)).append('\n');
            }

            @Override
            public void flush() throws IOException {
              out.flush();
            }

            @Override
            public void close() throws IOException {
              out.close();
            }
          };
        });
  }

  /**
   * The line of {@code value} in sink {@code sink}'s output: its JSON text, checked to be one line.
   */
  static <T> String jsonLine(String sink, JsonEncoder<? super T> encoder, T value)
      throws Exception {
    String text;
    try {
      text = encoder.encode(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "sink '"
              + sink
              + "': "
              + Json.cannotWrite(value, e)
              + " (give the class public getters or fields, make it a record, or pass"
              + " SinkSpec.jsonLines a JsonEncoder that can)",
          e);
    }
    if (text == null || text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0) {
      throw new IllegalArgumentException(
          "sink '"
              + sink
              + "': its JsonEncoder returned "
              + (text == null ? "null" : "text with a line break")
              + " for a "
              + (value == null ? "null record" : value.getClass().getName())
              + "; JSON lines needs one line of JSON per record");
    }
    return text;
  }
}
