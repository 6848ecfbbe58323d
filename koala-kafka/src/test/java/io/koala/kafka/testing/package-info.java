/**
 * Test support shipped in koala-kafka's test-jar: {@link io.koala.kafka.testing.EmbeddedKafka}, a
 * single-node KRaft Kafka in the JVM for tests and benchmarks.
 */
@Internal
package io.koala.kafka.testing;

import io.koala.Internal;
