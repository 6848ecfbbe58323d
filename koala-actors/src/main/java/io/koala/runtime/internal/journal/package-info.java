/**
 * The durable checkpoint-metadata journal of a job (DESIGN §8): {@link
 * io.koala.runtime.internal.journal.JobJournal}, an event-sourced actor per job on Pekko
 * Persistence, {@link io.koala.runtime.internal.journal.JournalConfig}, which sets up its store,
 * and {@link io.koala.runtime.internal.journal.FileJournal}, the default store's journal plugin
 * (files under the data directory; the other stores run on pekko-persistence-jdbc, on H2 or
 * PostgreSQL, which the application adds). The journal knows nothing of checkpoints beyond their
 * ids: it keeps the coordinator's encoded metadata as opaque bytes. Not API: anything here may
 * change.
 */
@Internal
package io.koala.runtime.internal.journal;

import io.koala.Internal;
