/**
 * The message vocabulary shared by the job and its tasks (DESIGN §4.2, §6.2): the items of data and
 * peer channels ({@link io.koala.protocol.RecordBatch}, {@link io.koala.protocol.Watermark}, {@link
 * io.koala.protocol.Marker}, {@link io.koala.protocol.Handover}, ...) and their envelopes ({@link
 * io.koala.protocol.Deliver}, {@link io.koala.protocol.Credit}), the epoch, state-plane and
 * checkpoint commands and reports, a task's setup, errors and metrics. Every message is a {@link
 * io.koala.protocol.KoalaMessage}. Plain Java.
 */
@Internal
package io.koala.protocol;

import io.koala.Internal;
