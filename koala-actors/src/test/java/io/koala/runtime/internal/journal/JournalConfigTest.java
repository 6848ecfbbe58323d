package io.koala.runtime.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.runtime.ConfigurationException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code koala.journal} is validated at start-up, naming the offending path. */
class JournalConfigTest {
  @TempDir Path dir;

  /** The PostgreSQL configuration of docs/checkpoint-metadata.md, kept in step with it. */
  static final String POSTGRES =
      """
      koala.journal.store = jdbc
      pekko-persistence-jdbc.shared-databases.koala-metadata {
        profile = "slick.jdbc.PostgresProfile$"
        db {
          url = "jdbc:postgresql://db.example:5432/koala"
          user = "koala"
          password = ${?KOALA_JOURNAL_PASSWORD}
          driver = "org.postgresql.Driver"
          numThreads = 5
          maxConnections = 5
          minConnections = 1
        }
      }
      jdbc-journal.use-shared-db = "koala-metadata"
      jdbc-snapshot-store.use-shared-db = "koala-metadata"
      """;

  private static Config parse(String hocon) {
    return ConfigFactory.parseString(hocon);
  }

  private static final Config EMBEDDED = parse("koala.journal.store = embedded");

  @Test
  void theDefaultIsTheFileJournalUnderTheDataDirectory() {
    JournalConfig journal = JournalConfig.from(ConfigFactory.empty(), dir);
    assertThat(journal.store()).isEqualTo(JournalConfig.Store.FILE);
    Path metadata = dir.toAbsolutePath().resolve("metadata");
    assertThat(journal.journalDir()).isEqualTo(metadata.resolve("journal"));
    assertThat(journal.snapshotDir()).isEqualTo(metadata.resolve("snapshots"));
    assertThat(journal.settings().journalPluginId()).isEqualTo("koala-file-journal");
    assertThat(journal.settings().snapshotPluginId()).isEqualTo("koala-file-snapshot-store");
    Config pekko = journal.pekkoConfig().withFallback(ConfigFactory.load()).resolve();
    assertThat(pekko.getString("koala-file-journal.class")).isEqualTo(FileJournal.class.getName());
    assertThat(pekko.getString("koala-file-journal.dir"))
        .isEqualTo(journal.journalDir().toString());
    // Pekko's local snapshot store, in the data directory
    assertThat(pekko.getString("koala-file-snapshot-store.class"))
        .isEqualTo(pekko.getString("pekko.persistence.snapshot-store.local.class"));
    assertThat(pekko.getString("koala-file-snapshot-store.dir"))
        .isEqualTo(journal.snapshotDir().toString());
    assertThat(journal.createSchema()).isFalse();
    assertThat(journal.settings().snapshotEvery()).isEqualTo(100);
  }

  @Test
  void theEmbeddedStoreIsAnH2DatabaseUnderTheDataDirectory() {
    JournalConfig journal = JournalConfig.from(EMBEDDED, dir);
    assertThat(journal.store()).isEqualTo(JournalConfig.Store.EMBEDDED);
    assertThat(journal.databaseDir()).isEqualTo(dir.toAbsolutePath().resolve("metadata"));
    assertThat(journal.jdbcUrl()).startsWith("jdbc:h2:file:" + dir.toAbsolutePath());
    assertThat(journal.settings().snapshotEvery()).isEqualTo(100);
    assertThat(journal.settings().journalPluginId()).isEqualTo("jdbc-journal");
    Config pekko = journal.pekkoConfig();
    assertThat(pekko.getString("jdbc-journal.use-shared-db")).isEqualTo("koala-metadata");
    assertThat(pekko.getString("jdbc-snapshot-store.use-shared-db")).isEqualTo("koala-metadata");
    String db = "pekko-persistence-jdbc.shared-databases.koala-metadata";
    assertThat(pekko.getString(db + ".profile")).isEqualTo("slick.jdbc.H2Profile$");
    assertThat(pekko.getString(db + ".db.url")).isEqualTo(journal.jdbcUrl());
    assertThat(pekko.getInt(db + ".db.maxConnections")).isEqualTo(4);
  }

  @Test
  void twoDataDirectoriesMeanTwoDatabases() {
    assertThat(JournalConfig.from(EMBEDDED, dir.resolve("a")).jdbcUrl())
        .isNotEqualTo(JournalConfig.from(EMBEDDED, dir.resolve("b")).jdbcUrl());
  }

  @Test
  void aStoreOnPekkoPersistenceJdbcNamesTheArtifactsMissingFromTheClasspath() {
    // koala-actors does not bring them: without them, each store names what to add
    assertThatThrownBy(() -> JournalConfig.from(EMBEDDED, dir, className -> false))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.journal.store = \"embedded\"")
        .hasMessageContaining("org.apache.pekko:pekko-persistence-jdbc_2.13")
        .hasMessageContaining("docs/checkpoint-metadata.md");
    assertThatThrownBy(
            () ->
                JournalConfig.from(EMBEDDED, dir, className -> !className.equals("org.h2.Driver")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("com.h2database:h2");
    assertThatThrownBy(() -> JournalConfig.from(parse(POSTGRES), null, className -> false))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.journal.store = \"jdbc\"")
        .hasMessageContaining("org.apache.pekko:pekko-persistence-jdbc_2.13");
    // the file store needs neither
    assertThat(JournalConfig.from(ConfigFactory.empty(), dir, className -> false).store())
        .isEqualTo(JournalConfig.Store.FILE);
    // and the jdbc store needs no H2
    assertThat(
            JournalConfig.from(
                    parse(POSTGRES), null, className -> !className.equals("org.h2.Driver"))
                .store())
        .isEqualTo(JournalConfig.Store.JDBC);
  }

  @Test
  void invalidValuesNameTheirPath() {
    assertThatThrownBy(() -> JournalConfig.from(parse("koala.journal.store = mysql"), dir))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.journal.store")
        .hasMessageContaining("\"file\", \"embedded\", \"jdbc\"");
    assertThatThrownBy(() -> JournalConfig.from(parse("koala.journal.snapshot-every = 0"), dir))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.journal.snapshot-every");
    assertThatThrownBy(
            () -> JournalConfig.from(parse("koala.journal.restart.min-backoff = soon"), dir))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.journal.restart.min-backoff");
    assertThatThrownBy(
            () -> JournalConfig.from(parse("koala.journal.journal-plugin = no-such-plugin"), dir))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.journal.journal-plugin")
        .hasMessageContaining("no-such-plugin.class");
    assertThatThrownBy(() -> JournalConfig.from(ConfigFactory.empty(), null))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.data-dir");
  }

  @Test
  void aJdbcStoreNeedsTheDatabaseSettings() {
    assertThatThrownBy(() -> JournalConfig.from(parse("koala.journal.store = jdbc"), null))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("jdbc-journal.slick.profile");
    assertThatThrownBy(
            () ->
                JournalConfig.from(
                    parse(
                        "koala.journal.store = jdbc\n"
                            + "jdbc-journal.use-shared-db = elsewhere\n"
                            + "jdbc-snapshot-store.use-shared-db = elsewhere"),
                    null))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("pekko-persistence-jdbc.shared-databases.elsewhere");
    assertThatThrownBy(
            () ->
                JournalConfig.from(
                    parse(POSTGRES)
                        .withValue(
                            "pekko-persistence-jdbc.shared-databases.koala-metadata.db.url",
                            ConfigFactory.parseString("u = \"\"").getValue("u")),
                    null))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("pekko-persistence-jdbc.shared-databases.koala-metadata.db.url");
  }

  @Test
  void theDocumentedPostgresConfigurationIsValid() {
    JournalConfig journal = JournalConfig.from(parse(POSTGRES), null);
    assertThat(journal.store()).isEqualTo(JournalConfig.Store.JDBC);
    assertThat(journal.pekkoConfig().isEmpty()).isTrue();
    assertThat(journal.createSchema()).isFalse();
  }
}
