/**
 * Event time as a dataflow declares it: a record's timestamp ({@link
 * io.koala.eventtime.TimestampFunction}) and how a source derives watermarks from the timestamps it
 * reads ({@link io.koala.eventtime.WatermarkStrategy}). Plain Java; how tasks combine watermarks is
 * {@code io.koala.time}'s.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.eventtime;
