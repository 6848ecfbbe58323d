/**
 * The durable checkpoint-metadata journal of a job (DESIGN §8): {@link
 * io.koala.runtime.internal.journal.JobJournal}, an event-sourced actor per job on Pekko
 * Persistence, and {@link io.koala.runtime.internal.journal.JournalConfig}, which sets up its store
 * (pekko-persistence-jdbc on an embedded H2 database in file mode by default, or on PostgreSQL).
 * The journal knows nothing of checkpoints beyond their ids: it keeps the coordinator's encoded
 * metadata as opaque bytes. Not API: anything here may change.
 */
@Internal
package io.koala.runtime.internal.journal;

import io.koala.Internal;
