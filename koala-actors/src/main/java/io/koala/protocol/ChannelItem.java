package io.koala.protocol;

/**
 * An in-band item of a data channel. Items of a channel are numbered consecutively from 0, and each
 * consumes one credit (DESIGN §4.2).
 */
public sealed interface ChannelItem
    permits RecordBatch,
        ForwardedBatch,
        Watermark,
        Idle,
        Marker,
        Handover,
        StateChunk,
        PeerMarker,
        CheckpointBarrier,
        EndOfChannel {}
