/**
 * Event-time progress (DESIGN §4.5): the watermark of a task is the minimum over its channels
 * ({@link io.koala.time.WatermarkTracker}), and a source's over its partitions ({@link
 * io.koala.time.PartitionWatermarks}). Durations quoted in messages read as a user writes them
 * ({@link io.koala.time.DurationText}). Plain Java.
 */
@Internal
package io.koala.time;

import io.koala.Internal;
