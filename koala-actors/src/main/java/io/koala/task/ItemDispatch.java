package io.koala.task;

import io.koala.channel.InputChannel;
import io.koala.function.KeySelector;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.CheckpointBarrier;
import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.ForwardedBatch;
import io.koala.protocol.Handover;
import io.koala.protocol.Idle;
import io.koala.protocol.Marker;
import io.koala.protocol.PeerMarker;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.StateChunk;
import io.koala.protocol.Watermark;
import io.koala.time.WatermarkTracker;
import java.util.function.BooleanSupplier;

/**
 * What each channel item does to the task's parts, once {@link TaskEngine}'s loop has chosen it: a
 * record batch runs through the operator chain (a keyed task forwards the records of buckets it
 * handed over, holds those that wait for a peer marker and parks those whose state is elsewhere);
 * watermarks, idleness and ends move event time; hand-overs, chunks, forwarded batches and markers
 * go to the task's part in the epoch; a barrier to the aligner. After each item it returns the
 * item's credit and lets event time, the epoch and the aligner see what changed.
 */
final class ItemDispatch {
  private static final long NONE = WatermarkTracker.NONE;

  private final TaskHost host;
  private final OperatorChain chain;
  private final InputGate input;
  private final EventTime eventTime;
  private final StatePlane keyed; // null: the chain keeps no keyed state
  private final KeyedBatch keyedBatch; // null likewise
  private final EpochParticipant epoch;
  private final BarrierAligner aligner;
  private final BatchClock clock;
  private final BooleanSupplier running;

  ItemDispatch(
      TaskHost host,
      OperatorChain chain,
      InputGate input,
      EventTime eventTime,
      StatePlane keyed,
      KeyedBatch keyedBatch,
      EpochParticipant epoch,
      BarrierAligner aligner,
      BatchClock clock,
      BooleanSupplier running) {
    this.host = host;
    this.chain = chain;
    this.input = input;
    this.eventTime = eventTime;
    this.keyed = keyed;
    this.keyedBatch = keyedBatch;
    this.epoch = epoch;
    this.aligner = aligner;
    this.clock = clock;
    this.running = running;
  }

  /**
   * Consumes item {@code d}, of arrival number {@code arrival}, taken from {@code lane}: the loop
   * chose to run it now.
   */
  void consume(InputGate.Lane lane, Deliver d, long arrival) {
    InputChannel ch = lane.channel();
    int index = lane.watermarkIndex();
    ChannelItem item = d.item();
    long advanced = NONE;
    if (item instanceof RecordBatch batch) {
      eventTime.onData(index);
      process(ch, batch, arrival);
    } else if (item instanceof Watermark w) {
      advanced = eventTime.onWatermark(index, w.timestamp());
    } else if (item == Idle.INSTANCE) {
      advanced = eventTime.onIdle(index);
    } else if (item instanceof ForwardedBatch forwarded) {
      eventTime.onData(index);
      epoch.processForwarded(forwarded, arrival);
    } else if (item instanceof Handover h) {
      epoch.installHandover(h, (TaskId) ch.source());
    } else if (item instanceof StateChunk c) {
      epoch.installChunk(c);
    } else if (item instanceof PeerMarker pm) {
      epoch.peerMarker(ch, pm);
    } else if (item instanceof Marker) {
      epoch.marker(ch);
    } else if (item instanceof CheckpointBarrier b) {
      aligner.barrier(lane, b.checkpointId(), epoch.active());
    } else if (item == EndOfChannel.INSTANCE) {
      advanced = eventTime.onEnd(index);
      epoch.channelEnded(ch);
    } else {
      throw new IllegalStateException("unhandled " + item);
    }
    input.consumed(lane, item == EndOfChannel.INSTANCE);
    eventTime.consumed(advanced, item == Idle.INSTANCE || item == EndOfChannel.INSTANCE);
    epoch.check();
    aligner.checkAligned(running.getAsBoolean());
  }

  /**
   * Runs a batch of records from upstream channel {@code ch}: a keyed task forwards those of
   * buckets it handed over, holds those that must wait for a peer marker (§6.6) and parks those
   * whose state is elsewhere (§6.4); the others run now.
   */
  private void process(InputChannel ch, RecordBatch batch, long arrival) {
    long t0 = host.nanoTime();
    clock.start(t0);
    int edge = ch.input();
    if (keyed == null) {
      for (int i = 0; i < batch.size(); i++) {
        chain.processHead(batch.value(i), batch.timestamp(i), edge);
      }
      chain.endBatch();
      chain.recordKey(null);
      clock.done(t0);
      return;
    }
    KeySelector<Object, Object> selector = keyed.selector(edge);
    keyedBatch.begin();
    for (int i = 0; i < batch.size(); i++) {
      Object value = batch.value(i);
      long ts = batch.timestamp(i);
      int bucket = keyed.setKey(selector, value);
      if (!keyed.owns(bucket)) {
        epoch.forwardOrFail(bucket, value, ts, edge);
      } else if (!epoch.holds(ch, bucket, value, ts, arrival)) {
        keyedBatch.run(bucket, value, ts, edge, arrival);
      }
    }
    keyedBatch.end();
    clock.done(t0);
  }
}
