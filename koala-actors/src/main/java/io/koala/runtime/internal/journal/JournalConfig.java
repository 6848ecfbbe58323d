package io.koala.runtime.internal.journal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import io.koala.runtime.ConfigurationException;
import io.koala.store.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

/**
 * The validated {@code koala.journal} configuration and the Pekko configuration it implies for the
 * checkpoint-metadata journal (DESIGN §8).
 *
 * <p>With {@code koala.journal.store = embedded} (the default) the journal and snapshot plugins
 * (pekko-persistence-jdbc) share one connection pool to an H2 database in file mode under {@code
 * <data-dir>/metadata}: no server, one database per data directory, so two ActorSystems with
 * different data directories in one JVM never share it, and a system restarted on the same
 * directory sees the previous journal. {@link #createSchema()} creates the plugin's tables on first
 * start. With {@code store = jdbc} the application configures the plugins itself (PostgreSQL for a
 * multi-node deployment, see {@code docs/checkpoint-metadata.md}) and creates their schema.
 *
 * <p>Start-up sequence:
 *
 * <pre>{@code
 * JournalConfig journal = JournalConfig.from(config, dataDir); // validates, names bad paths
 * journal.createSchema();                                       // embedded: tables if missing
 * ActorSystem.create(guardian, name, journal.pekkoConfig().withFallback(config));
 * context.spawn(JobJournal.create(jobId, journal.settings()), "journal");
 * }</pre>
 */
public final class JournalConfig {
  /** Where the journal is stored. */
  public enum Store {
    /** H2 in file mode under the data directory, configured and created by Koala. */
    EMBEDDED,
    /** pekko-persistence-jdbc as the application configures it (for example PostgreSQL). */
    JDBC
  }

  /** The shared-database name of the embedded store (under {@code shared-databases}). */
  public static final String EMBEDDED_DATABASE = "koala-metadata";

  private static final String SHARED_DATABASES = "pekko-persistence-jdbc.shared-databases";
  private static final String H2_SCHEMA = "schema/h2/h2-create-schema.sql";

  private final Store store;
  private final JournalSettings settings;
  private final Path databaseDir;
  private final int connections;

  private JournalConfig(Config config, Path dataDir) {
    String storeName = string(config, "koala.journal.store");
    this.store =
        switch (storeName) {
          case "embedded" -> Store.EMBEDDED;
          case "jdbc" -> Store.JDBC;
          default ->
              throw new ConfigurationException(
                  "koala.journal.store = \""
                      + storeName
                      + "\" is invalid; allowed: \"embedded\", \"jdbc\"");
        };
    String journalPlugin = string(config, "koala.journal.journal-plugin");
    String snapshotPlugin = string(config, "koala.journal.snapshot-plugin");
    Duration minBackoff = duration(config, "koala.journal.restart.min-backoff");
    Duration maxBackoff = duration(config, "koala.journal.restart.max-backoff");
    if (maxBackoff.compareTo(minBackoff) < 0) {
      throw new ConfigurationException(
          "koala.journal.restart.max-backoff ("
              + maxBackoff
              + ") must not be below koala.journal.restart.min-backoff ("
              + minBackoff
              + ")");
    }
    this.settings =
        new JournalSettings(
            journalPlugin,
            snapshotPlugin,
            intIn(config, "koala.journal.snapshot-every", 1, 1_000_000),
            intIn(config, "koala.journal.keep-snapshots", 1, 100),
            minBackoff,
            maxBackoff,
            intIn(config, "koala.journal.restart.max-restarts", 0, 1000));
    this.connections = intIn(config, "koala.journal.embedded.connections", 1, 64);
    requirePlugin(config, journalPlugin, "koala.journal.journal-plugin");
    requirePlugin(config, snapshotPlugin, "koala.journal.snapshot-plugin");
    if (store == Store.EMBEDDED) {
      if (dataDir == null) {
        throw new ConfigurationException(
            "koala.journal.store = \"embedded\" needs a data directory (koala.data-dir)");
      }
      this.databaseDir = dataDir.toAbsolutePath().normalize().resolve("metadata");
      if (databaseDir.toString().contains(";")) {
        throw new ConfigurationException(
            "koala.data-dir must not contain ';' with koala.journal.store = \"embedded\" (it"
                + " would end the H2 database URL): "
                + databaseDir);
      }
    } else {
      this.databaseDir = null;
      requireDatabase(config, journalPlugin);
      requireDatabase(config, snapshotPlugin);
    }
  }

  /**
   * Reads and validates {@code koala.journal} from {@code config} (Koala's and the plugins'
   * defaults fill what it lacks).
   *
   * @param dataDir the runtime's data directory; the embedded database lives in its {@code
   *     metadata} subdirectory (may be {@code null} with {@code store = jdbc})
   * @throws ConfigurationException naming the first invalid path
   */
  public static JournalConfig from(Config config, Path dataDir) {
    return new JournalConfig(
        config.withFallback(ConfigFactory.defaultReference()).resolve(), dataDir);
  }

  public Store store() {
    return store;
  }

  /** The settings to create each {@link JobJournal} with. */
  public JournalSettings settings() {
    return settings;
  }

  /** The directory of the embedded database. */
  public Path databaseDir() {
    requireEmbedded();
    return databaseDir;
  }

  /**
   * The JDBC URL of the embedded database: file mode, no server. {@code WRITE_DELAY=0} writes every
   * commit to the file before the commit returns, so a reply from the journal survives a crash of
   * the process (not of the operating system: H2 does not fsync each commit; use PostgreSQL where
   * that matters).
   */
  public String jdbcUrl() {
    requireEmbedded();
    return "jdbc:h2:file:" + databaseDir.resolve("koala") + ";DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0";
  }

  /**
   * The Pekko settings to lay over the ActorSystem's configuration: with the embedded store, the
   * plugins' shared H2 database; with {@code jdbc}, nothing (the application's configuration holds
   * it all).
   */
  public Config pekkoConfig() {
    if (store == Store.JDBC) {
      return ConfigFactory.empty();
    }
    Config reference = ConfigFactory.defaultReference();
    Config db =
        reference
            .getConfig(SHARED_DATABASES + ".slick")
            .withValue("profile", ConfigValueFactory.fromAnyRef("slick.jdbc.H2Profile$"))
            .withValue(
                "db",
                ConfigValueFactory.fromMap(
                        Map.of(
                            "url",
                            jdbcUrl(),
                            "user",
                            "sa",
                            "password",
                            "",
                            "driver",
                            "org.h2.Driver",
                            "numThreads",
                            connections,
                            "maxConnections",
                            connections,
                            "minConnections",
                            connections))
                    .withFallback(reference.getConfig(SHARED_DATABASES + ".slick.db").root()));
    return db.atPath(SHARED_DATABASES + "." + EMBEDDED_DATABASE)
        .withFallback(useShared(settings.journalPluginId()))
        .withFallback(useShared(settings.snapshotPluginId()));
  }

  private static Config useShared(String plugin) {
    return ConfigFactory.empty()
        .withValue(plugin + ".use-shared-db", ConfigValueFactory.fromAnyRef(EMBEDDED_DATABASE));
  }

  /**
   * With the embedded store, creates the database and the plugin's tables (its own H2 script) if
   * they do not exist yet; idempotent. Call it before the ActorSystem starts. With {@code jdbc} it
   * does nothing: the schema there is the operator's.
   *
   * @return whether anything was created
   * @throws StoreException when the database cannot be opened or the script fails
   */
  public boolean createSchema() {
    if (store == Store.JDBC) {
      return false;
    }
    try {
      Files.createDirectories(databaseDir);
    } catch (IOException e) {
      throw new StoreException("cannot create the journal directory " + databaseDir, e);
    }
    synchronized (JournalConfig.class) {
      try (Connection c = DriverManager.getConnection(jdbcUrl(), "sa", "")) {
        if (hasTable(c, "event_journal") && hasTable(c, "event_tag") && hasTable(c, "snapshot")) {
          return false;
        }
        try (Statement s = c.createStatement()) {
          for (String sql : h2Script().split(";")) {
            if (!sql.isBlank()) {
              s.execute(sql);
            }
          }
        }
        return true;
      } catch (SQLException e) {
        throw new StoreException(
            "cannot create the journal schema in " + jdbcUrl() + ": " + e.getMessage(), e);
      }
    }
  }

  /** The plugin's H2 DDL, made idempotent (its one index lacks {@code IF NOT EXISTS}). */
  private static String h2Script() {
    ClassLoader loader =
        org.apache.pekko.persistence.jdbc.journal.JdbcAsyncWriteJournal.class.getClassLoader();
    try (InputStream in = loader.getResourceAsStream(H2_SCHEMA)) {
      if (in == null) {
        throw new StoreException(H2_SCHEMA + " not found with pekko-persistence-jdbc");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .replace("CREATE UNIQUE INDEX \"", "CREATE UNIQUE INDEX IF NOT EXISTS \"");
    } catch (IOException e) {
      throw new StoreException("cannot read " + H2_SCHEMA, e);
    }
  }

  private static boolean hasTable(Connection c, String table) throws SQLException {
    try (ResultSet rs = c.getMetaData().getTables(null, "PUBLIC", table, null)) {
      return rs.next();
    }
  }

  private void requireEmbedded() {
    if (store != Store.EMBEDDED) {
      throw new IllegalStateException("koala.journal.store is \"jdbc\", not \"embedded\"");
    }
  }

  // ------------------------------------------------------------------ validation

  private static void requirePlugin(Config config, String plugin, String setting) {
    if (!config.hasPath(plugin + ".class")) {
      throw new ConfigurationException(
          setting
              + " = \""
              + plugin
              + "\" names no Pekko Persistence plugin: "
              + plugin
              + ".class is not set");
    }
  }

  /** With store = jdbc: the plugin's database (shared or its own) has a profile and a URL. */
  private static void requireDatabase(Config config, String plugin) {
    String shared = plugin + ".use-shared-db";
    String base;
    if (config.hasPath(shared) && !config.getString(shared).isEmpty()) {
      base = SHARED_DATABASES + "." + config.getString(shared);
      if (!config.hasPath(base)) {
        throw new ConfigurationException(
            shared + " = \"" + config.getString(shared) + "\" but " + base + " is not configured");
      }
    } else {
      base = plugin + ".slick";
    }
    for (String key : new String[] {"profile", "db.url"}) {
      String path = base + "." + key;
      if (!config.hasPath(path) || config.getString(path).isBlank()) {
        throw new ConfigurationException(
            "koala.journal.store = \"jdbc\" needs " + path + " (see docs/checkpoint-metadata.md)");
      }
    }
  }

  private static String string(Config config, String path) {
    try {
      return config.getString(path);
    } catch (ConfigException e) {
      throw new ConfigurationException(path + ": " + e.getMessage(), e);
    }
  }

  private static int intIn(Config config, String path, int min, int max) {
    int v;
    try {
      v = config.getInt(path);
    } catch (ConfigException e) {
      throw new ConfigurationException(path + ": " + e.getMessage(), e);
    }
    if (v < min || v > max) {
      throw new ConfigurationException(
          path + " = " + v + " is out of range; allowed: " + min + " to " + max);
    }
    return v;
  }

  private static Duration duration(Config config, String path) {
    Duration d;
    try {
      d = config.getDuration(path);
    } catch (ConfigException e) {
      throw new ConfigurationException(path + ": " + e.getMessage(), e);
    }
    if (d.isNegative() || d.isZero()) {
      throw new ConfigurationException(path + " = " + d + " must be positive");
    }
    return d;
  }
}
