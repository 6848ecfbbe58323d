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
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The validated {@code koala.journal} configuration and the Pekko configuration it implies for the
 * checkpoint-metadata journal (DESIGN §8).
 *
 * <p>With {@code koala.journal.store = file} (the default) the journal is Koala's {@link
 * FileJournal} under {@code <data-dir>/metadata/journal} and the snapshots Pekko's local snapshot
 * store under {@code <data-dir>/metadata/snapshots}: no database, one journal per data directory,
 * so two ActorSystems with different data directories in one JVM never share it, and a system
 * restarted on the same directory sees the previous journal. The other two stores run on
 * pekko-persistence-jdbc, which koala-actors does not bring: the application adds it (and its
 * database's driver). With {@code store = embedded} the journal and snapshot plugins share one
 * connection pool to an H2 database in file mode under {@code <data-dir>/metadata}, whose tables
 * {@link #createSchema()} creates on first start. With {@code store = jdbc} the application
 * configures the plugins itself (PostgreSQL for a multi-node deployment, see {@code
 * docs/checkpoint-metadata.md}) and creates their schema.
 *
 * <p>Start-up sequence:
 *
 * <pre>{@code
 * JournalConfig journal = JournalConfig.from(config, dataDir); // validates, names bad paths
 * journal.createSchema();                                       // embedded: H2 tables if missing
 * ActorSystem.create(guardian, name, journal.pekkoConfig().withFallback(config));
 * context.spawn(JobJournal.create(jobId, journal.settings()), "journal");
 * }</pre>
 */
public final class JournalConfig {
  /** Where the journal is stored. */
  public enum Store {
    /** Koala's {@link FileJournal} and Pekko's local snapshot store under the data directory. */
    FILE,
    /** H2 in file mode under the data directory, configured and created by Koala. */
    EMBEDDED,
    /** pekko-persistence-jdbc as the application configures it (for example PostgreSQL). */
    JDBC;

    /** Its value of {@code koala.journal.store}. */
    public String configName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The shared-database name of the embedded store (under {@code shared-databases}). */
  public static final String EMBEDDED_DATABASE = "koala-metadata";

  /** The file store's journal plugin (a config path, in Koala's {@code reference.conf}). */
  static final String FILE_JOURNAL_PLUGIN = "koala-file-journal";

  /** The file store's snapshot plugin: Pekko's local snapshot store, in the data directory. */
  static final String FILE_SNAPSHOT_PLUGIN = "koala-file-snapshot-store";

  private static final String SHARED_DATABASES = "pekko-persistence-jdbc.shared-databases";
  private static final String H2_SCHEMA = "schema/h2/h2-create-schema.sql";
  private static final String JDBC_PLUGIN_CLASS =
      "org.apache.pekko.persistence.jdbc.journal.JdbcAsyncWriteJournal";
  private static final String H2_DRIVER_CLASS = "org.h2.Driver";

  private final Store store;
  private final JournalSettings settings;
  private final Path metadataDir;
  private final int connections;

  private JournalConfig(Config config, Path dataDir, Predicate<String> onClasspath) {
    String storeName = string(config, "koala.journal.store");
    this.store =
        switch (storeName) {
          case "file" -> Store.FILE;
          case "embedded" -> Store.EMBEDDED;
          case "jdbc" -> Store.JDBC;
          default ->
              throw new ConfigurationException(
                  "koala.journal.store = \""
                      + storeName
                      + "\" is invalid; allowed: \"file\", \"embedded\", \"jdbc\"");
        };
    if (store != Store.FILE) {
      requireClass(onClasspath, JDBC_PLUGIN_CLASS, "org.apache.pekko:pekko-persistence-jdbc_2.13");
    }
    if (store == Store.EMBEDDED) {
      requireClass(onClasspath, H2_DRIVER_CLASS, "com.h2database:h2");
    }
    String journalPlugin =
        pluginOrDefault(
            config,
            "koala.journal.journal-plugin",
            store == Store.FILE ? FILE_JOURNAL_PLUGIN : "jdbc-journal");
    String snapshotPlugin =
        pluginOrDefault(
            config,
            "koala.journal.snapshot-plugin",
            store == Store.FILE ? FILE_SNAPSHOT_PLUGIN : "jdbc-snapshot-store");
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
    if (store == Store.JDBC) {
      this.metadataDir = null;
      requireDatabase(config, journalPlugin);
      requireDatabase(config, snapshotPlugin);
    } else {
      if (dataDir == null) {
        throw new ConfigurationException(
            "koala.journal.store = \"" + storeName + "\" needs a data directory (koala.data-dir)");
      }
      this.metadataDir = dataDir.toAbsolutePath().normalize().resolve("metadata");
      if (store == Store.EMBEDDED && metadataDir.toString().contains(";")) {
        throw new ConfigurationException(
            "koala.data-dir must not contain ';' with koala.journal.store = \"embedded\" (it"
                + " would end the H2 database URL): "
                + metadataDir);
      }
    }
  }

  /**
   * Reads and validates {@code koala.journal} from {@code config} (Koala's and the plugins'
   * defaults fill what it lacks).
   *
   * @param dataDir the runtime's data directory; the file journal or the embedded database lives in
   *     its {@code metadata} subdirectory (may be {@code null} with {@code store = jdbc})
   * @throws ConfigurationException naming the first invalid path, or the artifact to add when the
   *     store needs pekko-persistence-jdbc or H2 and the classpath lacks it
   */
  public static JournalConfig from(Config config, Path dataDir) {
    return from(config, dataDir, JournalConfig::loadable);
  }

  /** {@link #from(Config, Path)}, with {@code onClasspath} telling whether a class is there. */
  static JournalConfig from(Config config, Path dataDir, Predicate<String> onClasspath) {
    return new JournalConfig(
        config.withFallback(ConfigFactory.defaultReference()).resolve(), dataDir, onClasspath);
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
    return metadataDir;
  }

  /** The directory of the file store's journal files. */
  public Path journalDir() {
    requireStore(Store.FILE);
    return metadataDir.resolve("journal");
  }

  /** The directory of the file store's snapshots. */
  public Path snapshotDir() {
    requireStore(Store.FILE);
    return metadataDir.resolve("snapshots");
  }

  /**
   * The JDBC URL of the embedded database: file mode, no server. {@code WRITE_DELAY=0} writes every
   * commit to the file before the commit returns, so a reply from the journal survives a crash of
   * the process (not of the operating system: H2 does not fsync each commit; use PostgreSQL where
   * that matters).
   */
  public String jdbcUrl() {
    requireEmbedded();
    return "jdbc:h2:file:" + metadataDir.resolve("koala") + ";DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0";
  }

  /**
   * The Pekko settings to lay over the ActorSystem's configuration: with the file store, the
   * plugins' directories; with the embedded store, the plugins' shared H2 database; with {@code
   * jdbc}, nothing (the application's configuration holds it all).
   */
  public Config pekkoConfig() {
    if (store == Store.JDBC) {
      return ConfigFactory.empty();
    }
    if (store == Store.FILE) {
      return ConfigFactory.empty()
          .withValue(
              settings.journalPluginId() + ".dir",
              ConfigValueFactory.fromAnyRef(journalDir().toString()))
          .withValue(
              settings.snapshotPluginId() + ".dir",
              ConfigValueFactory.fromAnyRef(snapshotDir().toString()));
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
   * they do not exist yet; idempotent. Call it before the ActorSystem starts. With {@code file} it
   * does nothing (the plugins create their files as they write); with {@code jdbc} neither: the
   * schema there is the operator's.
   *
   * @return whether anything was created
   * @throws StoreException when the database cannot be opened or the script fails
   */
  public boolean createSchema() {
    if (store != Store.EMBEDDED) {
      return false;
    }
    try {
      Files.createDirectories(metadataDir);
    } catch (IOException e) {
      throw new StoreException("cannot create the journal directory " + metadataDir, e);
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
    try (InputStream in = JournalConfig.class.getClassLoader().getResourceAsStream(H2_SCHEMA)) {
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
    requireStore(Store.EMBEDDED);
  }

  private void requireStore(Store expected) {
    if (store != expected) {
      throw new IllegalStateException(
          "koala.journal.store is \""
              + store.configName()
              + "\", not \""
              + expected.configName()
              + "\"");
    }
  }

  // ------------------------------------------------------------------ validation

  private static boolean loadable(String className) {
    try {
      Class.forName(className, false, JournalConfig.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** A store that needs a library koala-actors does not bring names the artifact to add. */
  private void requireClass(Predicate<String> onClasspath, String className, String artifact) {
    if (!onClasspath.test(className)) {
      throw new ConfigurationException(
          "koala.journal.store = \""
              + store.configName()
              + "\" needs "
              + artifact
              + " on the classpath ("
              + className
              + " is missing): add it to the application's dependencies, at the version"
              + " docs/checkpoint-metadata.md names, or use koala.journal.store = \"file\"");
    }
  }

  /** A plugin path, or {@code fallback} (the store's own plugin) when the setting is empty. */
  private static String pluginOrDefault(Config config, String setting, String fallback) {
    String plugin = string(config, setting);
    return plugin.isBlank() ? fallback : plugin;
  }

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
