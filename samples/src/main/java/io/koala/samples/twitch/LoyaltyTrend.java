package io.koala.samples.twitch;

/**
 * What the loyalty trend analyser emits per loyalty update: the streamer's loyalty score and its
 * exponentially smoothed trend (per update).
 */
public record LoyaltyTrend(String streamerName, double loyalty, double trend) {}
