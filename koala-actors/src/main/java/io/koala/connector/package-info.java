/**
 * Sources and sinks: what a source reads ({@link io.koala.connector.SourceSpec}, {@link
 * io.koala.connector.PartitionReader}, the generator and collection sources) and where results go
 * ({@link io.koala.connector.SinkSpec}, {@link io.koala.connector.SinkWriter}, the JSON-lines
 * sinks). Plain Java.
 */
package io.koala.connector;
