/**
 * Sources and sinks: what a source reads ({@link io.koala.connector.SourceSpec}: a task's {@link
 * io.koala.connector.SourceReader} of splits with checkpointed positions; {@link
 * io.koala.connector.LogSource} over replayable logs, the generator and collection sources) and
 * where results go ({@link io.koala.connector.SinkSpec}, {@link io.koala.connector.SinkWriter}, the
 * JSON-lines sinks). Plain Java.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala.connector;
