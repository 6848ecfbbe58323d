/** A Twitch-like workload (WORKLOADS.md): viewers entering and leaving streams, and its queries. */
package io.koala.samples.twitch;
