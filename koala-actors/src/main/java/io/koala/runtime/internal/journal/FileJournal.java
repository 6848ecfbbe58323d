package io.koala.runtime.internal.journal;

import com.typesafe.config.Config;
import io.koala.runtime.ConfigurationException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.pekko.dispatch.Futures;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.journal.japi.AsyncWriteJournal;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import scala.concurrent.Future;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A Pekko Persistence journal plugin that keeps each persistence id's events in a file of its own
 * under the configured {@code dir} ({@code <koala.data-dir>/metadata/journal} with {@code
 * koala.journal.store = file}, the default): one node's durable journal with no database. The
 * format, its crash safety and its deletion are {@link JournalFile}'s; this class serializes the
 * events (Pekko's serializer of {@link PersistentRepr}, the payload with Koala's) and maps
 * persistence ids to files.
 *
 * <p>Every write batch is forced to the disk before it is acknowledged. The plugin does its I/O on
 * the thread that calls it (Pekko's plugin dispatcher gives the journal a thread of its own); a
 * replay, which Pekko may run on another thread, takes the same lock.
 *
 * <p>Configuration (the plugin's config path, {@code koala-file-journal} in Koala's {@code
 * reference.conf}): {@code class}, and {@code dir}, which {@link JournalConfig#pekkoConfig()} sets.
 */
public final class FileJournal extends AsyncWriteJournal {
  private final Path dir;
  private final Serialization serialization;
  private final Map<String, JournalFile> files = new HashMap<>(); // guarded by this

  /** Created by Pekko with the plugin's configuration. */
  public FileJournal(Config config, String configPath) {
    String d = config.hasPath("dir") ? config.getString("dir") : "";
    if (d.isBlank()) {
      throw new ConfigurationException(
          configPath + ".dir is not set: the directory of " + getClass().getName() + "'s files");
    }
    this.dir = Path.of(d);
    this.serialization = SerializationExtension.get(context().system());
  }

  @Override
  public Future<Iterable<Optional<Exception>>> doAsyncWriteMessages(Iterable<AtomicWrite> writes) {
    List<Optional<Exception>> results = new ArrayList<>();
    Map<String, List<List<JournalFile.Event>>> byId = new LinkedHashMap<>();
    for (AtomicWrite write : writes) {
      List<JournalFile.Event> events = new ArrayList<>();
      try {
        for (PersistentRepr repr : CollectionConverters.asJava(write.payload())) {
          events.add(new JournalFile.Event(repr.sequenceNr(), serialization.serialize(repr).get()));
        }
      } catch (Exception e) { // Try.get rethrows the serializer's exception, checked or not
        // rejected: not written, and the events after it in the batch are still written
        results.add(Optional.of(e));
        continue;
      }
      byId.computeIfAbsent(write.persistenceId(), id -> new ArrayList<>()).add(events);
      results.add(Optional.empty());
    }
    try {
      synchronized (this) {
        for (Map.Entry<String, List<List<JournalFile.Event>>> e : byId.entrySet()) {
          file(e.getKey()).append(e.getValue());
        }
      }
    } catch (Exception e) { // I/O, or a serializer's exception that Try.get rethrows
      return Futures.failed(e);
    }
    return Futures.successful(results);
  }

  @Override
  public Future<Void> doAsyncDeleteMessagesTo(String persistenceId, long toSequenceNr) {
    try {
      synchronized (this) {
        file(persistenceId).deleteTo(toSequenceNr);
      }
      return Futures.successful(null);
    } catch (Exception e) { // I/O, or a serializer's exception that Try.get rethrows
      return Futures.failed(e);
    }
  }

  @Override
  public Future<Void> doAsyncReplayMessages(
      String persistenceId,
      long fromSequenceNr,
      long toSequenceNr,
      long max,
      Consumer<PersistentRepr> replayCallback) {
    try {
      synchronized (this) {
        file(persistenceId)
            .replay(
                fromSequenceNr,
                toSequenceNr,
                max,
                e ->
                    replayCallback.accept(
                        serialization.deserialize(e.payload(), PersistentRepr.class).get()));
      }
      return Futures.successful(null);
    } catch (Exception e) { // I/O, or a serializer's exception that Try.get rethrows
      return Futures.failed(e);
    }
  }

  @Override
  public Future<Long> doAsyncReadHighestSequenceNr(String persistenceId, long fromSequenceNr) {
    try {
      synchronized (this) {
        return Futures.successful(file(persistenceId).highestSequenceNr());
      }
    } catch (Exception e) { // I/O, or a serializer's exception that Try.get rethrows
      return Futures.failed(e);
    }
  }

  @Override
  public void postStop() throws Exception {
    synchronized (this) {
      for (JournalFile f : files.values()) {
        f.close();
      }
      files.clear();
    }
    super.postStop();
  }

  private JournalFile file(String persistenceId) throws IOException {
    JournalFile f = files.get(persistenceId);
    if (f == null) {
      f = JournalFile.open(dir.resolve(fileName(persistenceId)));
      files.put(persistenceId, f);
    }
    return f;
  }

  /**
   * The file of a persistence id: its letters and digits (lower-cased, others as {@code _}, at most
   * 64), for the reader, then 16 hex digits of its SHA-256, so that ids differing only in case or
   * in replaced characters get different files on every file system.
   */
  static String fileName(String persistenceId) {
    StringBuilder name = new StringBuilder();
    for (int i = 0; i < persistenceId.length() && name.length() < 64; i++) {
      char c = Character.toLowerCase(persistenceId.charAt(i));
      name.append((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ? c : '_');
    }
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest(persistenceId.getBytes(StandardCharsets.UTF_8));
      return name + "-" + HexFormat.of().formatHex(hash, 0, 8) + ".journal";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
