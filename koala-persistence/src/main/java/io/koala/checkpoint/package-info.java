/**
 * The on-disk part of checkpoints (DESIGN §8): {@link io.koala.checkpoint.SnapshotFile} writes the
 * snapshot of a task's store, read through the one read transaction the task opened at the barrier
 * (hazard C2), as a single checksummed file, and verifies and restores it; {@link
 * io.koala.checkpoint.CheckpointStorage} lays the files out as {@code
 * <root>/<jobId>/chk-<checkpointId>/<task>.snap}. Plain Java over the {@link io.koala.store} SPI:
 * no actors, no journal.
 */
@Internal
package io.koala.checkpoint;

import io.koala.Internal;
