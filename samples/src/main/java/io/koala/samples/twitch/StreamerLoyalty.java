package io.koala.samples.twitch;

/** What the viewer-loyalty calculator emits per event: the streamer's loyalty score so far. */
public record StreamerLoyalty(long streamerId, double loyalty) {}
