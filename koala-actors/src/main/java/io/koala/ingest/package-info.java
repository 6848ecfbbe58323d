/**
 * Push ingestion's service side, pure: {@link io.koala.ingest.IngestLedger} numbers, stripes, sends
 * and keeps the records a service offers until the job holds them. The runtime's {@code Ingest}
 * handle drives it; the source tasks' side is {@code io.koala.task.IngestReader}.
 */
@Internal
package io.koala.ingest;

import io.koala.Internal;
