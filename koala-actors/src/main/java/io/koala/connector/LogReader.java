package io.koala.connector;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reader of a {@link LogSource} in one task: its partitions, each read in order from its offset
 * as far as the log has made available, at most {@code max} records per partition per read.
 */
final class LogReader<T> implements SourceReader<T> {
  private final LogSource<T> source;
  private final SourceContext ctx;
  private final List<Partition<T>> partitions = new ArrayList<>();

  /** One partition this task reads. */
  private static final class Partition<T> {
    final int number;
    final String split;
    final PartitionReader<T> reader;
    SplitOutput<T> output;
    long offset;
    boolean done;

    Partition(int number, PartitionReader<T> reader) {
      this.number = number;
      this.split = Integer.toString(number);
      this.reader = reader;
    }
  }

  LogReader(LogSource<T> source, SourceContext ctx) {
    this.source = source;
    this.ctx = ctx;
    for (int p = ctx.taskIndex(); p < source.partitions(); p += ctx.parallelism()) {
      partitions.add(new Partition<>(p, source.open(p, ctx.startMillis())));
    }
  }

  @Override
  public void start(Map<String, Long> restored, SourceOutput<T> output) {
    restored.forEach(
        (split, offset) -> {
          Partition<T> p =
              partitions.stream()
                  .filter(candidate -> candidate.split.equals(split))
                  .findFirst()
                  .orElseThrow(
                      () ->
                          new IllegalStateException(
                              "source '"
                                  + source.name()
                                  + "' task "
                                  + ctx.taskIndex()
                                  + " of "
                                  + ctx.parallelism()
                                  + " restores partition "
                                  + split
                                  + ", which it does not read (its partitions: "
                                  + positions().keySet()
                                  + ")"));
          p.offset = offset;
        });
    for (Partition<T> p : partitions) {
      p.output = output.split(p.split);
      if (p.offset >= p.reader.end()) {
        p.done = true;
        p.output.end();
      }
    }
  }

  @Override
  public ReadResult read(int max) throws Exception {
    long now = ctx.currentTimeMillis();
    boolean more = false;
    boolean allDone = true;
    long nextAt = Long.MAX_VALUE;
    for (Partition<T> p : partitions) {
      if (p.done) {
        continue;
      }
      long available = p.reader.available(now);
      long n = Math.min(available - p.offset, max);
      for (long i = 0; i < n; i++) {
        T v = p.reader.read(p.offset);
        long ts = p.reader.timestamp(p.offset, v);
        p.offset++;
        p.output.emit(v, ts);
      }
      p.output.watermark(p.reader.watermark(p.offset));
      if (p.offset >= p.reader.end()) {
        p.done = true;
        p.output.end();
        continue;
      }
      allDone = false;
      if (p.offset < available) {
        more = true;
      } else {
        nextAt = Math.min(nextAt, p.reader.availableAt(p.offset));
      }
    }
    if (allDone) {
      return ReadResult.END;
    }
    return more ? ReadResult.MORE : ReadResult.waitUntil(nextAt);
  }

  @Override
  public Map<String, Long> positions() {
    Map<String, Long> out = new LinkedHashMap<>();
    for (Partition<T> p : partitions) {
      out.put(p.split, p.offset);
    }
    return out;
  }

  @Override
  public Backlog backlog(long nowMillis) {
    long records = 0;
    double seconds = 0;
    for (Partition<T> p : partitions) {
      if (p.done) {
        continue;
      }
      long available = p.reader.available(nowMillis);
      if (available == Long.MAX_VALUE) {
        continue; // an unlimited source is never behind
      }
      if (available > p.offset) {
        records += available - p.offset;
        seconds = Math.max(seconds, (nowMillis - p.reader.availableAt(p.offset)) / 1000.0);
      }
    }
    return new Backlog(records, Math.max(0, seconds));
  }
}
