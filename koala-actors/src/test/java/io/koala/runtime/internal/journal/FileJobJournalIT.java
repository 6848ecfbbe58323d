package io.koala.runtime.internal.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The journal's tests on {@code koala.journal.store = file} (the default): {@link FileJournal} and
 * Pekko's local snapshot store.
 */
class FileJobJournalIT extends JobJournalIT {
  @Override
  JournalConfig.Store store() {
    return JournalConfig.Store.FILE;
  }

  /**
   * The events in {@code jobId}'s journal file. Opening it beside the plugin is safe only while
   * nothing writes to it (no append, so no torn tail to truncate), as where this is called.
   */
  @Override
  List<Long> storedEvents(JournalConfig journal, String jobId) {
    String id = JobJournal.persistenceIdOf(jobId).id();
    List<Long> out = new ArrayList<>();
    try (JournalFile f = JournalFile.open(journal.journalDir().resolve(FileJournal.fileName(id)))) {
      f.replay(1, Long.MAX_VALUE, Long.MAX_VALUE, e -> out.add(e.sequenceNr()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
