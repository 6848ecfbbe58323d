package io.koala.runtime.internal.journal;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The journal's tests on {@code koala.journal.store = embedded}: pekko-persistence-jdbc on H2. */
class EmbeddedJobJournalIT extends JobJournalIT {
  @Override
  JournalConfig.Store store() {
    return JournalConfig.Store.EMBEDDED;
  }

  /** Rows of {@code jobId}'s events still in the embedded database. */
  @Override
  List<Long> storedEvents(JournalConfig journal, String jobId) {
    try (Connection c = DriverManager.getConnection(journal.jdbcUrl(), "sa", "");
        PreparedStatement s =
            c.prepareStatement(
                "SELECT \"sequence_number\" FROM \"event_journal\" WHERE \"persistence_id\" = ?"
                    + " AND NOT \"deleted\" ORDER BY 1")) {
      s.setString(1, JobJournal.persistenceIdOf(jobId).id());
      List<Long> out = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getLong(1));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
