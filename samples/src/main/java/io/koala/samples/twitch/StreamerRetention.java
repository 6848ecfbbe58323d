package io.koala.samples.twitch;

/**
 * What the retention analyser emits per event: the event itself, for the stages after it, and the
 * streamer's retention so far ({@link Retention}).
 *
 * @param viewers viewers in the stream
 * @param events events of the streamer seen
 * @param averageRatio mean share of the longest session the leavers watched
 * @param retentionScore the retention score, 0 to 100
 */
public record StreamerRetention(
    ViewerEvent event, long viewers, long events, double averageRatio, double retentionScore) {

  /** The streamer of the event. */
  public long streamerId() {
    return event.streamerId();
  }
}
