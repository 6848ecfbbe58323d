/**
 * Experiments that reproduce the paper's results at this machine's scale (WORKLOADS.md,
 * "Experiments"): a scenario driven against the embedded runtime, sampled every second, summarised
 * in one JSON object and, optionally, a per-second CSV. Parameters are named after the {@code koala
 * experiment} flags that set them.
 */
package io.koala.bench.experiment;
