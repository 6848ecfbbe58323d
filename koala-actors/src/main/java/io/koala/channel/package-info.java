/**
 * Flow-controlled channels (DESIGN §4.2): sequence numbers and cumulative credit on both ends
 * ({@link io.koala.channel.InputChannel}, {@link io.koala.channel.OutputChannel}), and the builders
 * of record and forwarded batches. Plain Java.
 */
@Internal
package io.koala.channel;

import io.koala.Internal;
