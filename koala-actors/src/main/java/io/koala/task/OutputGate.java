package io.koala.task;

import io.koala.channel.BatchBuilder;
import io.koala.channel.ForwardBuilder;
import io.koala.channel.OutputChannel;
import io.koala.function.KeySelector;
import io.koala.plan.ExecutionPlan.Vertex;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.CheckpointBarrier;
import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.Idle;
import io.koala.protocol.Marker;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.TaskSetup.OutputSpec;
import io.koala.protocol.Watermark;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.time.WatermarkTracker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The output side of one task: decides which channel each emitted record goes to (per output edge,
 * by its {@link Router}), batches records per channel until a batch is full or its linger time has
 * passed, and sends under credit ({@link OutputChannel}). It also carries the task's client
 * channel, the peer channels a sender forwards on during a reconfiguration, and what the task last
 * told its downstream about event time (a watermark, or that it is idle), which a channel opened
 * later starts with (DESIGN §4.2). While any channel holds items waiting for credit, the task is
 * {@link #blocked()}: it processes nothing more, so backpressure reaches the sources.
 */
final class OutputGate {
  private static final long NONE = WatermarkTracker.NONE;

  private final TaskSetup setup;
  private final TaskHost host;
  private final KryoSerde serde;
  private final KeyEncoder keys;
  private final TaskMetrics metrics;
  private final List<OutputChannel> outputs = new ArrayList<>();
  private final Map<Integer, Integer> outputIndex = new HashMap<>(); // channel → position
  private final List<BatchBuilder> builders = new ArrayList<>();
  private final Map<Integer, ForwardBuilder> forwards = new HashMap<>(); // peer position → builder

  /** Per output edge of the vertex: its deployment, router, and the side output it carries. */
  private final List<OutputSpec> edgeSpecs = new ArrayList<>();

  private final Map<Integer, Long> switchedAt = new HashMap<>(); // edge → last epoch switched
  private final List<Router> edgeRouters = new ArrayList<>();
  private final List<KeySelector<Object, Object>> edgeSelectors = new ArrayList<>();
  private final List<String> edgeConsumers = new ArrayList<>();
  private final int clientOutput;
  private final OutputChannel.Sender sender = this::sendItem;
  private boolean flushScheduled;
  private boolean idleSent;
  private long forwardedWatermark = NONE;

  @SuppressWarnings("unchecked")
  OutputGate(
      TaskSetup setup,
      Vertex vertex,
      KryoSerde serde,
      KeyEncoder keys,
      TaskHost host,
      TaskMetrics metrics) {
    this.setup = setup;
    this.host = host;
    this.serde = serde;
    this.keys = keys;
    this.metrics = metrics;
    String tail = vertex.tail().id().name();
    if (setup.outputs().size() != vertex.outputs().size()) {
      throw new IllegalArgumentException(
          "task "
              + setup.task()
              + ": deployment has "
              + setup.outputs().size()
              + " output edges, the plan "
              + vertex.outputs().size());
    }
    for (int e = 0; e < setup.outputs().size(); e++) {
      OutputSpec out = setup.outputs().get(e);
      int[] positions = new int[out.channels().size()];
      for (int i = 0; i < positions.length; i++) {
        positions[i] = addOutput(out.channels().get(i), out.targets().get(i), tail);
      }
      KeySelector<Object, Object> selector =
          (KeySelector<Object, Object>) vertex.outputs().get(e).keySelector();
      String consumer = vertex.outputs().get(e).to().name();
      edgeSpecs.add(out);
      edgeSelectors.add(selector);
      edgeConsumers.add(consumer);
      edgeRouters.add(Router.of(out, positions, selector, consumer, setup.buckets(), keys));
    }
    clientOutput = addOutput(setup.clientChannel(), TaskEngine.CLIENT, tail);
  }

  private int addOutput(int channel, Object target, String operator) {
    int pos = outputs.size();
    outputs.add(new OutputChannel(channel, target, setup.settings().credits()));
    builders.add(new BatchBuilder(setup.settings(), serde.registry(), operator));
    outputIndex.put(channel, pos);
    return pos;
  }

  // ---------------------------------------------------------------- records

  /** A record of the chain's main output. */
  void emit(Object value, long timestamp) {
    metrics.recordsOut++;
    route(null, value, timestamp);
  }

  /** Routes a record of the main output ({@code sideOutput} null) or of a side output. */
  void route(String sideOutput, Object value, long timestamp) {
    for (int e = 0; e < edgeRouters.size(); e++) {
      if (Objects.equals(edgeSpecs.get(e).sideOutput(), sideOutput)) {
        int pos = edgeRouters.get(e).route(value);
        if (builders.get(pos).add(value, timestamp)) {
          flush(pos);
        }
      }
    }
  }

  void collectForClient(Object value) {
    if (builders.get(clientOutput).add(value, Long.MIN_VALUE)) {
      flush(clientOutput);
    }
  }

  /** Sends the records batched for the channel at {@code pos}. */
  void flush(int pos) {
    BatchBuilder b = builders.get(pos);
    if (!b.isEmpty()) {
      if (pos != clientOutput) {
        idleSent = false; // data makes the channel active again downstream
      }
      outputs.get(pos).offer(b.take(), sender);
    }
    ForwardBuilder f = forwards.get(pos);
    if (f != null && !f.isEmpty()) {
      outputs.get(pos).offer(f.take(), sender);
    }
  }

  void flushAll() {
    for (int i = 0; i < outputs.size(); i++) {
      flush(i);
    }
  }

  /** Asks for a flush after the linger time when a batch is partly filled and none is asked for. */
  void scheduleFlushIfPartial() {
    if (flushScheduled) {
      return;
    }
    boolean partial = builders.stream().anyMatch(b -> !b.isEmpty());
    partial |= forwards.values().stream().anyMatch(f -> !f.isEmpty());
    if (partial) {
      flushScheduled = true;
      host.schedule(TaskTimer.FLUSH, setup.settings().lingerMillis());
    }
  }

  /** The flush asked for is due. */
  void flushDue() {
    flushScheduled = false;
  }

  private void sendItem(OutputChannel ch, long seq, ChannelItem item) {
    host.send(ch.target(), new Deliver(ch.id(), seq, item));
  }

  // ---------------------------------------------------------------- credit

  boolean hasChannel(int channel) {
    return outputIndex.containsKey(channel);
  }

  /** A credit grant for output channel {@code channel}, which the task has. */
  void onCredit(int channel, long limit) {
    outputs.get(outputIndex.get(channel)).onCredit(limit, sender);
  }

  /** Whether some output channel holds items waiting for credit. */
  boolean blocked() {
    for (OutputChannel ch : outputs) {
      if (ch.queued() > 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the only outputs waiting for credit are peer channels. Two tasks that hand buckets to
   * each other forward to each other: if a blocked peer output stopped all input, each would wait
   * for the other to consume. Peer input never produces peer output (one hop), so it is consumed
   * even then, which breaks the cycle.
   */
  boolean blockedOnlyOnPeers() {
    if (forwards.isEmpty()) {
      return false;
    }
    boolean any = false;
    for (int pos = 0; pos < outputs.size(); pos++) {
      if (outputs.get(pos).queued() > 0) {
        if (!forwards.containsKey(pos)) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }

  // ---------------------------------------------------------------- event time and barriers

  /** Sends {@code item} on every data output channel after the records emitted before it. */
  private void forward(ChannelItem item) {
    if (item instanceof Watermark w) {
      idleSent = false; // a watermark makes the channel active again downstream
      forwardedWatermark = w.timestamp();
    }
    for (int i = 0; i < outputs.size(); i++) {
      if (i != clientOutput && !outputs.get(i).closed()) {
        flush(i);
        outputs.get(i).offer(item, sender);
      }
    }
  }

  void forwardWatermark(long watermark) {
    forward(new Watermark(watermark));
  }

  /** Tells downstream, once, that this task is idle. */
  void emitIdle() {
    if (!idleSent) {
      idleSent = true;
      forward(Idle.INSTANCE);
    }
  }

  /** Sends the barrier on every open output, the client's included, after what came before it. */
  void forwardBarrier(long checkpointId) {
    CheckpointBarrier barrier = new CheckpointBarrier(checkpointId);
    for (int i = 0; i < outputs.size(); i++) {
      if (!outputs.get(i).closed()) {
        flush(i);
        outputs.get(i).offer(barrier, sender);
      }
    }
  }

  long forwardedWatermark() {
    return forwardedWatermark;
  }

  boolean idleSent() {
    return idleSent;
  }

  /** Resumes from a checkpoint: what downstream was last told. */
  void restore(long forwardedWatermark, boolean idle) {
    this.forwardedWatermark = forwardedWatermark;
    this.idleSent = idle;
  }

  /** Downstream of a restored task resumes from where this task's event time was. */
  void resumeDownstream() {
    ChannelItem first = firstItemOfNewChannel();
    for (int i = 0; first != null && i < outputs.size(); i++) {
      if (i != clientOutput) {
        outputs.get(i).offer(first, sender);
      }
    }
  }

  /** What a new channel starts with: the last watermark forwarded, Idle, or nothing yet. */
  private ChannelItem firstItemOfNewChannel() {
    if (idleSent) {
      return Idle.INSTANCE;
    }
    return forwardedWatermark == NONE ? null : new Watermark(forwardedWatermark);
  }

  /** Every input has ended: flushes and sends end-of-channel on every open output. */
  void end() {
    flushAll();
    for (OutputChannel ch : outputs) {
      if (!ch.closed()) {
        ch.offer(EndOfChannel.INSTANCE, sender);
      }
    }
  }

  // ---------------------------------------------------------------- routing switches

  /**
   * A source task gave up splits at epoch {@code epoch}: flushes, then sends a {@link Marker} on
   * every open output channel, after everything it read of them.
   */
  void markAll(long epoch) {
    flushAll();
    for (int i = 0; i < outputs.size(); i++) {
      OutputChannel ch = outputs.get(i);
      if (i != clientOutput && !ch.closed()) {
        ch.offer(new Marker(epoch), sender);
      }
    }
  }

  /**
   * Whether edge {@code edge} has yet to switch at {@code epoch}; if so, the switch counts as done
   * from now on (markers go out even when the table is unchanged).
   */
  boolean switching(int edge, long epoch) {
    Objects.checkIndex(edge, edgeSpecs.size());
    if (switchedAt.getOrDefault(edge, Long.MIN_VALUE) >= epoch) {
      return false;
    }
    switchedAt.put(edge, epoch);
    return true;
  }

  /** See {@link TaskEngine#switchRouting}; {@code operator} names new channels' batches. */
  void switchRouting(int edge, OutputSpec next, long epoch, String operator) {
    OutputSpec current = edgeSpecs.get(edge);
    for (int ch : current.channels()) {
      flush(outputIndex.get(ch));
    }
    Set<Integer> keep = new HashSet<>(next.channels());
    for (int ch : current.channels()) {
      OutputChannel out = outputs.get(outputIndex.get(ch));
      out.offer(new Marker(epoch), sender);
      if (!keep.contains(ch)) {
        out.offer(EndOfChannel.INSTANCE, sender);
      }
    }
    int[] positions = new int[next.channels().size()];
    for (int i = 0; i < positions.length; i++) {
      int ch = next.channels().get(i);
      Integer pos = outputIndex.get(ch);
      if (pos == null) {
        pos = addOutput(ch, next.targets().get(i), operator);
        ChannelItem first = firstItemOfNewChannel();
        if (first != null) {
          outputs.get(pos).offer(first, sender);
        }
      }
      positions[i] = pos;
    }
    edgeSpecs.set(edge, next);
    edgeRouters.set(
        edge,
        Router.of(
            next,
            positions,
            edgeSelectors.get(edge),
            edgeConsumers.get(edge),
            setup.buckets(),
            keys));
  }

  /**
   * A switch after the input has ended: nothing more will be routed by any table, so the channels
   * {@code next} adds carry only their end, which their receivers wait for.
   */
  void endNewChannels(OutputSpec next, String operator) {
    for (int i = 0; i < next.channels().size(); i++) {
      int ch = next.channels().get(i);
      if (!outputIndex.containsKey(ch)) {
        int pos = addOutput(ch, next.targets().get(i), operator);
        outputs.get(pos).offer(EndOfChannel.INSTANCE, sender);
      }
    }
  }

  // ---------------------------------------------------------------- peer channels

  /** Opens an outgoing peer channel to {@code receiver} at hand-over; returns its position. */
  int openPeer(int channel, TaskId receiver, String operator) {
    int pos = addOutput(channel, receiver, operator);
    forwards.put(pos, new ForwardBuilder(setup.settings().maxBatchRecords()));
    return pos;
  }

  /** Forwards a record on the peer channel at {@code pos}, with its input edge. */
  void forwardRecord(int pos, Object value, long timestamp, int edge) {
    if (forwards.get(pos).add(value, timestamp, edge)) {
      flush(pos);
    }
  }

  /** Sends {@code item} on the channel at {@code pos}, with no flush before it. */
  void offer(int pos, ChannelItem item) {
    outputs.get(pos).offer(item, sender);
  }
}
