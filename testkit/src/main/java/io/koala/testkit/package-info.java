/** What users and Koala's own tests need to test dataflows: simulation, oracles, checkers. */
package io.koala.testkit;
