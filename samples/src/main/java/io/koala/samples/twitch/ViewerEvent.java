package io.koala.samples.twitch;

/**
 * A viewer entering or leaving a stream (WORKLOADS.md, Twitch viewer loyalty). A {@code LEAVE}
 * carries how long the viewer watched, in minutes (a multiple of 10); an {@code ENTER} carries 0.
 *
 * @param eventTime event time, milliseconds
 */
public record ViewerEvent(
    long userId,
    long streamerId,
    String streamerName,
    long eventTime,
    boolean enter,
    int watchedMinutes) {}
