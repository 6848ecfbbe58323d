package io.koala.task;

import io.koala.protocol.BucketMove;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.EpochMessage;
import io.koala.protocol.ReconfigurationProtocol;
import java.util.List;

/**
 * Test fixture: the reconfiguration protocol's own commands that move one bucket between two real
 * task engines over a peer channel (epoch 1, state on access): each task prepares its part, the
 * sender hands the bucket over, and what it sends on the peer channel is relayed to the receiver.
 */
final class PeerHandover {
  private final FakeServices senderHost;
  private final FakeServices.Task sender;
  private final FakeServices.Task receiver;
  private final int bucket;
  private final int channel;
  private int relayed; // items of the peer channel passed on to the receiver

  PeerHandover(
      FakeServices senderHost,
      FakeServices.Task sender,
      FakeServices.Task receiver,
      int bucket,
      int channel) {
    this.senderHost = senderHost;
    this.sender = sender;
    this.receiver = receiver;
    this.bucket = bucket;
    this.channel = channel;
  }

  private BucketMove move() {
    return new BucketMove(bucket, sender.setup().task().index(), receiver.setup().task().index());
  }

  /**
   * The sender prepares to give the bucket away, and awaits a marker on each of {@code markers}.
   */
  void prepareSender(List<Integer> markers) {
    sender
        .engine()
        .onCommand(
            new EpochMessage.PrepareTarget(
                1,
                List.of(move()),
                List.of(),
                List.of(new EpochMessage.Peer(channel, receiver.setup().task())),
                List.of(),
                markers));
  }

  /** The receiver prepares to take the bucket, and awaits a marker on each of {@code markers}. */
  void prepareReceiver(List<Integer> markers) {
    receiver
        .engine()
        .onCommand(
            new EpochMessage.PrepareTarget(
                1,
                List.of(),
                List.of(move()),
                List.of(),
                List.of(new EpochMessage.Peer(channel, sender.setup().task())),
                markers));
  }

  /** The sender hands the bucket over, with credit to send on the peer channel. */
  void handOver() {
    sender
        .engine()
        .onCommand(
            new EpochMessage.HandOverBuckets(1, ReconfigurationProtocol.StateMove.ON_ACCESS));
    sender.engine().onCredit(new Credit(channel, 1_000));
  }

  /**
   * The whole move at once, no task awaiting a marker: both prepare, the sender hands the bucket
   * over, and the receiver gets what it sent on the peer channel ({@link #flushAndRelay}).
   */
  void moveNow() {
    prepareSender(List.of());
    prepareReceiver(List.of());
    handOver();
    flushAndRelay();
  }

  /**
   * The sender flushes what it buffered (its flush timer, when one is set) and the receiver gets
   * what it sent on the peer channel since the last relay.
   */
  void flushAndRelay() {
    if (senderHost.takeTimer(TaskTimer.FLUSH) != null) {
      sender.engine().onTimer(TaskTimer.FLUSH);
    }
    relay();
  }

  /** Passes on to the receiver what the sender sent on the peer channel since the last call. */
  void relay() {
    List<Deliver> sent = sent();
    for (Deliver d : sent.subList(relayed, sent.size())) {
      receiver.engine().onDeliver(d);
    }
    relayed = sent.size();
  }

  /** Everything the sender sent on the peer channel so far, relayed or not. */
  List<Deliver> sent() {
    return senderHost.deliveries(receiver.setup().task());
  }
}
