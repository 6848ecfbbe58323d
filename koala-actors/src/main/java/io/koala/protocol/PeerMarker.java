package io.koala.protocol;

import io.koala.plan.TaskId;

/**
 * On a peer channel (DESIGN §6.1 step 5, §6.6): the sender has consumed the marker of its channel
 * from {@code upstream} on input edge {@code edge} and forwarded everything that came before it, so
 * the receiver may release the records of moved buckets it holds from that upstream.
 */
public record PeerMarker(TaskId upstream, int edge) implements ChannelItem {}
