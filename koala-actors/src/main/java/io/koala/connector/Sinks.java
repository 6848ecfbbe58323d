package io.koala.connector;

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

  static <T> SinkSpec<T> jsonLines(String name, Path directory) {
    Objects.requireNonNull(directory, "directory");
    return new Named<>(
        name,
        ctx -> {
          if (ctx.checkpointing()) {
            return JsonLinesParts.open(directory, name, ctx.taskIndex(), ctx.restoredCheckpoint());
          }
          Files.createDirectories(directory);
          Path file = directory.resolve(name + "-" + ctx.taskIndex() + ".jsonl");
          BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
          return new SinkWriter<T>() {
            private final StringBuilder line = new StringBuilder();

            @Override
            public void write(T value, long timestamp) throws IOException {
              line.setLength(0);
              Json.append(line, value);
              out.append(line).append('\n');
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
}
