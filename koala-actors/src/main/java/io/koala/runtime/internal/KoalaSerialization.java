package io.koala.runtime.internal;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.typesafe.config.Config;
import io.koala.coordinator.Change;
import io.koala.job.ErrorInfo;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.LatencyHistogram;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.OperatorId;
import io.koala.plan.Partitioning;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.ForwardedBatch;
import io.koala.protocol.Idle;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.StateMessage;
import io.koala.protocol.TaskSetup;
import io.koala.protocol.Watermark;
import io.koala.runtime.ConfigurationException;
import io.koala.serialization.TypeRegistry;
import io.koala.store.KeyLayout;
import java.util.Arrays;
import java.util.List;
import org.apache.pekko.actor.AbstractExtensionId;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Extension;
import org.apache.pekko.actor.ExtensionIdProvider;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;

/**
 * The {@link TypeRegistry} of one ActorSystem: Koala's own messages, typed actor references (as
 * their serialization format), the configured types and those of submitted dataflows. Used by
 * {@link KoalaSerializer} and by the tasks' state codecs.
 */
public final class KoalaSerialization extends AbstractExtensionId<KoalaSerialization.Registry>
    implements ExtensionIdProvider {

  public static final KoalaSerialization ID = new KoalaSerialization();

  private KoalaSerialization() {}

  /** The registry extension of {@code system}. */
  public static TypeRegistry registry(org.apache.pekko.actor.typed.ActorSystem<?> system) {
    return ID.get(Adapter.toClassic(system)).registry();
  }

  @Override
  public KoalaSerialization lookup() {
    return ID;
  }

  /** The configuration path of the deepest object graph the serializer accepts. */
  static final String MAX_DEPTH = "koala.serialization.max-depth";

  @Override
  public Registry createExtension(ExtendedActorSystem system) {
    TypeRegistry registry = TypeRegistry.withDefaults();
    // KoalaConfig validated it when the runtime started; a system started some other way (a
    // plain ActorSystem, a cluster node) gets the same check here
    Config config = system.settings().config();
    if (config.hasPath(MAX_DEPTH)) {
      int depth;
      try {
        depth = config.getInt(MAX_DEPTH);
      } catch (com.typesafe.config.ConfigException e) {
        throw new ConfigurationException(
            MAX_DEPTH + " is invalid: " + e.getMessage() + "; expected an integer", e);
      }
      try {
        registry.setMaxDepth(depth);
      } catch (IllegalArgumentException e) {
        throw new ConfigurationException(
            MAX_DEPTH
                + " = "
                + depth
                + " is out of range; allowed: ["
                + TypeRegistry.MIN_MAX_DEPTH
                + ", "
                + TypeRegistry.MAX_MAX_DEPTH
                + "]",
            e);
      }
    }
    registerMessages(registry);
    ActorRefResolver resolver = ActorRefResolver.get(Adapter.toTyped(system));
    registry.register(ActorRef.class, r -> new ActorRefSerializer(resolver));
    registry.alias(ActorRef.class);
    return new Registry(registry);
  }

  /** Registers every message class Koala's actors exchange. */
  static void registerMessages(TypeRegistry registry) {
    registry.register(RecordBatch.class, r -> new RecordBatchSerializer());
    registry.register(ForwardedBatch.class, r -> new ForwardedBatchSerializer());
    registry.register(StateMessage.KeyRef.class, r -> new KeyRefSerializer());
    registry.register(LatencyHistogram.class, r -> new LatencyHistogramSerializer());
    registry.register(StateMessage.KeyState.class, r -> new KeyStateSerializer());
    registry.register(
        EndOfChannel.class,
        Watermark.class,
        Idle.class,
        io.koala.protocol.Marker.class,
        io.koala.protocol.Handover.class,
        io.koala.protocol.Handover.ShippedTimer.class,
        io.koala.protocol.PeerMarker.class,
        io.koala.protocol.CheckpointBarrier.class,
        io.koala.protocol.CheckpointMessage.TriggerCheckpoint.class,
        io.koala.protocol.CheckpointMessage.SnapshotHolder.class,
        io.koala.protocol.CheckpointMessage.CheckpointCommitted.class,
        io.koala.protocol.CheckpointMessage.AbortCheckpoint.class,
        io.koala.protocol.BucketHandover.class,
        io.koala.protocol.BucketHandover.Entry.class,
        Deliver.class,
        Credit.class,
        ChannelSettings.class,
        TaskSetup.class,
        TaskSetup.InputSpec.class,
        TaskSetup.OutputSpec.class,
        ErrorInfo.class,
        TaskMetricsSnapshot.class,
        TaskMetricsSnapshot.Reconfiguration.class,
        TaskMetricsSnapshot.OperatorCounts.class,
        io.koala.job.BucketLoads.class,
        TaskId.class,
        OperatorId.class,
        Partitioning.class,
        JobMetrics.class,
        io.koala.job.CheckpointStats.class,
        io.koala.job.CheckpointStats.Pending.class,
        io.koala.job.ReconfigurationProgress.class,
        JobStatus.class,
        StateMessage.Fetch.class,
        StateMessage.StateReply.class,
        StateMessage.Release.class,
        StateMessage.Released.class,
        StateMessage.Drain.class,
        StateMessage.DrainChunk.class,
        io.koala.protocol.DrainSettings.class,
        io.koala.protocol.BucketMove.class,
        io.koala.protocol.EpochMessage.Peer.class,
        io.koala.protocol.EpochMessage.PrepareTarget.class,
        io.koala.protocol.EpochMessage.ExpectInputs.class,
        io.koala.protocol.EpochMessage.CatchUp.class,
        io.koala.protocol.EpochMessage.CatchUpSplits.class,
        io.koala.protocol.EpochMessage.HandOverBuckets.class,
        io.koala.protocol.EpochMessage.SwitchRouting.class,
        io.koala.protocol.EpochMessage.Retiring.class,
        io.koala.protocol.EpochMessage.References.class,
        io.koala.protocol.EpochMessage.InputEnded.class,
        io.koala.protocol.EpochMessage.PauseInput.class,
        io.koala.protocol.EpochMessage.ResumeInput.class,
        io.koala.protocol.EpochMessage.Paused.class,
        io.koala.protocol.StateChunk.class,
        io.koala.protocol.EpochMessage.EndInput.class,
        io.koala.protocol.EpochMessage.Prepared.class,
        io.koala.protocol.EpochMessage.CaughtUp.class,
        io.koala.protocol.EpochMessage.HandedOver.class,
        io.koala.protocol.EpochMessage.Connected.class,
        io.koala.protocol.EpochMessage.Switched.class,
        io.koala.protocol.EpochMessage.Drained.class,
        io.koala.protocol.EpochMessage.Transfer.class,
        io.koala.protocol.EpochMessage.SplitMove.class,
        io.koala.protocol.EpochMessage.ReleaseSplits.class,
        io.koala.protocol.EpochMessage.SplitsReleased.class,
        io.koala.protocol.EpochMessage.AssignSplits.class,
        io.koala.protocol.EpochMessage.SplitsAssigned.class,
        io.koala.routing.PartitionPolicy.Even.class,
        io.koala.routing.PartitionPolicy.ConsistentHashing.class,
        io.koala.routing.PartitionPolicy.Explicit.class,
        io.koala.job.ReconfigurationReport.class,
        Change.Rescale.class,
        Change.Rebalance.class,
        Change.Migrate.class,
        io.koala.coordinator.JobReply.Completed.class,
        io.koala.coordinator.JobReply.Rejected.class,
        io.koala.job.ReconfigurationException.Reason.class,
        io.koala.protocol.ReconfigurationProtocol.StateMove.class,
        StateMessage.ServiceFetch.class,
        StateMessage.ServiceWrite.class,
        StateMessage.WriteBarrier.class,
        StateMessage.ServiceFailed.class,
        io.koala.job.StatePlaneStats.class,
        io.koala.job.StatePlaneStats.Stall.class,
        io.koala.protocol.IngestMessage.Attach.class,
        io.koala.protocol.IngestMessage.Batch.class,
        io.koala.protocol.IngestMessage.End.class,
        io.koala.protocol.IngestMessage.Hello.class,
        io.koala.protocol.IngestMessage.Consumed.class,
        io.koala.protocol.IngestMessage.Committed.class,
        io.koala.protocol.QueryMessage.Read.class,
        io.koala.protocol.QueryMessage.Kind.class,
        io.koala.protocol.QueryMessage.Types.class,
        io.koala.protocol.QueryMessage.HolderRead.class,
        io.koala.protocol.QueryMessage.Found.class,
        io.koala.protocol.QueryMessage.NotHere.class,
        io.koala.protocol.QueryMessage.Refused.class,
        io.koala.protocol.QueryMessage.Scan.class,
        io.koala.protocol.QueryMessage.HolderScan.class,
        io.koala.protocol.QueryMessage.HolderScanned.class,
        io.koala.protocol.QueryMessage.KeyEntries.class,
        io.koala.protocol.QueryMessage.Page.class,
        io.koala.protocol.QueryMessage.Declared.class,
        io.koala.coordinator.JobReply.IngestAttached.class,
        RequestRecord.class);
    for (Class<?> c : Messages.ALL) {
      registry.register(c);
    }
    // The checkpoint-metadata journal's events and snapshots are stored with these ids too.
    for (Class<?> c : io.koala.runtime.internal.journal.JobJournal.MESSAGES) {
      registry.register(c);
    }
  }

  /** The extension value: one registry per ActorSystem. */
  public record Registry(TypeRegistry registry) implements Extension {}

  /** Writes a typed actor reference as its serialization format. */
  static final class ActorRefSerializer extends Serializer<ActorRef<?>> {
    private final ActorRefResolver resolver;

    ActorRefSerializer(ActorRefResolver resolver) {
      this.resolver = resolver;
      setImmutable(true);
    }

    @Override
    public void write(Kryo kryo, Output output, ActorRef<?> ref) {
      output.writeString(resolver.toSerializationFormat(ref));
    }

    @Override
    public ActorRef<?> read(Kryo kryo, Input input, Class<? extends ActorRef<?>> type) {
      return resolver.resolveActorRef(input.readString());
    }
  }

  /** Writes a forwarded batch like a batch, with each record's input edge. */
  static final class ForwardedBatchSerializer extends Serializer<ForwardedBatch> {
    ForwardedBatchSerializer() {
      setImmutable(true);
    }

    @Override
    public void write(Kryo kryo, Output output, ForwardedBatch batch) {
      int n = batch.size();
      output.writeVarInt(n, true);
      for (int i = 0; i < n; i++) {
        kryo.writeClassAndObject(output, batch.value(i));
        output.writeLong(batch.timestamp(i));
        output.writeVarInt(batch.edge(i), true);
      }
    }

    @Override
    public ForwardedBatch read(Kryo kryo, Input input, Class<? extends ForwardedBatch> type) {
      int n = input.readVarInt(true);
      Object[] values = new Object[n];
      long[] timestamps = new long[n];
      int[] edges = new int[n];
      for (int i = 0; i < n; i++) {
        values[i] = kryo.readClassAndObject(input);
        timestamps[i] = input.readLong();
        edges[i] = input.readVarInt(true);
      }
      return new ForwardedBatch(values, timestamps, edges, n);
    }
  }

  /** Writes a key as its bucket and bytes, without the record's field-by-field framing. */
  /** A latency histogram as its compressed encoding. */
  static final class LatencyHistogramSerializer extends Serializer<LatencyHistogram> {
    LatencyHistogramSerializer() {
      setImmutable(true);
    }

    @Override
    public void write(Kryo kryo, Output output, LatencyHistogram h) {
      writeBytes(output, h.toCompressed());
    }

    @Override
    public LatencyHistogram read(Kryo kryo, Input input, Class<? extends LatencyHistogram> type) {
      return LatencyHistogram.fromCompressed(readBytes(input));
    }
  }

  static final class KeyRefSerializer extends Serializer<StateMessage.KeyRef> {
    KeyRefSerializer() {
      setImmutable(true);
    }

    @Override
    public void write(Kryo kryo, Output output, StateMessage.KeyRef ref) {
      output.writeVarInt(ref.bucket(), true);
      writeBytes(output, ref.key());
    }

    @Override
    public StateMessage.KeyRef read(
        Kryo kryo, Input input, Class<? extends StateMessage.KeyRef> type) {
      int bucket = input.readVarInt(true);
      return new StateMessage.KeyRef(bucket, readBytes(input));
    }
  }

  /**
   * Writes a key's state flat, as the bulk of a state reply or a drained chunk: the key, the
   * generation, then its entries as lengths and bytes, no class ids or collection framing per
   * entry. Store keys that start with the key's prefix (those a holder serves all do) go without
   * it.
   */
  static final class KeyStateSerializer extends Serializer<StateMessage.KeyState> {
    KeyStateSerializer() {
      setImmutable(true);
    }

    @Override
    public void write(Kryo kryo, Output output, StateMessage.KeyState ks) {
      StateMessage.KeyRef ref = ks.key();
      output.writeVarInt(ref.bucket(), true);
      writeBytes(output, ref.key());
      output.writeVarLong(ks.generation(), true);
      List<byte[]> keys = ks.storeKeys();
      List<byte[]> values = ks.values();
      int n = keys.size();
      output.writeVarInt(n, true);
      byte[] prefix = n == 0 ? null : KeyLayout.keyPrefix(ref.bucket(), ref.key());
      boolean elide = true;
      for (int i = 0; i < n && elide; i++) {
        byte[] k = keys.get(i);
        elide =
            k.length >= prefix.length
                && Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length);
      }
      output.writeBoolean(elide);
      int skip = elide && n > 0 ? prefix.length : 0;
      for (int i = 0; i < n; i++) {
        byte[] k = keys.get(i);
        output.writeVarInt(k.length - skip, true);
        output.writeBytes(k, skip, k.length - skip);
        writeBytes(output, values.get(i));
      }
    }

    @Override
    public StateMessage.KeyState read(
        Kryo kryo, Input input, Class<? extends StateMessage.KeyState> type) {
      int bucket = input.readVarInt(true);
      byte[] key = readBytes(input);
      long generation = input.readVarLong(true);
      int n = input.readVarInt(true);
      boolean elided = input.readBoolean();
      byte[] prefix = elided && n > 0 ? KeyLayout.keyPrefix(bucket, key) : new byte[0];
      byte[][] keys = new byte[n][];
      byte[][] values = new byte[n][];
      for (int i = 0; i < n; i++) {
        int rest = input.readVarInt(true);
        keys[i] = Arrays.copyOf(prefix, prefix.length + rest);
        input.readBytes(keys[i], prefix.length, rest);
        values[i] = readBytes(input);
      }
      return new StateMessage.KeyState(
          new StateMessage.KeyRef(bucket, key), generation, List.of(keys), List.of(values));
    }
  }

  private static void writeBytes(Output output, byte[] bytes) {
    output.writeVarInt(bytes.length, true);
    output.writeBytes(bytes);
  }

  private static byte[] readBytes(Input input) {
    return input.readBytes(input.readVarInt(true));
  }

  /** Writes a batch as its size, then per record the value and the timestamp delta. */
  static final class RecordBatchSerializer extends Serializer<RecordBatch> {
    RecordBatchSerializer() {
      setImmutable(true);
    }

    @Override
    public void write(Kryo kryo, Output output, RecordBatch batch) {
      int n = batch.size();
      output.writeVarInt(n, true);
      long previous = 0;
      for (int i = 0; i < n; i++) {
        kryo.writeClassAndObject(output, batch.value(i));
        long ts = batch.timestamp(i);
        output.writeVarLong(ts - previous, false);
        previous = ts;
      }
    }

    @Override
    public RecordBatch read(Kryo kryo, Input input, Class<? extends RecordBatch> type) {
      int n = input.readVarInt(true);
      Object[] values = new Object[n];
      long[] timestamps = new long[n];
      long previous = 0;
      for (int i = 0; i < n; i++) {
        values[i] = kryo.readClassAndObject(input);
        previous += input.readVarLong(false);
        timestamps[i] = previous;
      }
      return new RecordBatch(values, timestamps, n);
    }
  }
}
