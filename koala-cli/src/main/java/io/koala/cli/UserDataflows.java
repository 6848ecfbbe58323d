package io.koala.cli;

import com.typesafe.config.Config;
import io.koala.cluster.DataflowProvider;
import io.koala.dataflow.Dataflow;
import io.koala.runtime.ConfigurationException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * The dataflows of {@code koala node --dataflows JAR,...}: the jars in a class loader whose parent
 * is the command line's, and the dataflows of every {@link DataflowProvider} they or the command
 * line's own class path list in {@value #SERVICES} (koala-cli lists none; the samples list the
 * cluster experiment's workload). Every problem is a {@link ConfigurationException} naming the
 * option and the jar, provider or dataflow, before the node starts.
 */
final class UserDataflows {
  static final String SERVICES = "META-INF/services/" + DataflowProvider.class.getName();

  private UserDataflows() {}

  /**
   * A class loader of {@code jars} over {@code parent}, once each is a readable jar that lists a
   * provider; null when there is no jar.
   */
  static URLClassLoader loader(List<Path> jars, ClassLoader parent) {
    if (jars.isEmpty()) {
      return null;
    }
    URL[] urls = new URL[jars.size()];
    for (int i = 0; i < urls.length; i++) {
      Path jar = jars.get(i);
      if (!Files.isRegularFile(jar) || !Files.isReadable(jar)) {
        throw new ConfigurationException("--dataflows " + jar + ": no such readable file");
      }
      if (providersListed(jar) == 0) {
        throw new ConfigurationException(
            "--dataflows "
                + jar
                + ": lists no dataflow provider (a "
                + SERVICES
                + " entry naming a class that implements it)");
      }
      try {
        urls[i] = jar.toUri().toURL();
      } catch (MalformedURLException e) {
        throw new ConfigurationException("--dataflows " + jar + ": " + e.getMessage(), e);
      }
    }
    return new URLClassLoader("koala-dataflows", urls, parent);
  }

  /** How many provider classes {@code jar}'s services file lists. */
  private static int providersListed(Path jar) {
    try (JarFile file = new JarFile(jar.toFile())) {
      ZipEntry entry = file.getEntry(SERVICES);
      if (entry == null) {
        return 0;
      }
      try (BufferedReader in =
          new BufferedReader(
              new InputStreamReader(file.getInputStream(entry), StandardCharsets.UTF_8))) {
        return (int)
            in.lines().map(l -> l.replaceFirst("#.*", "").trim()).filter(l -> !l.isEmpty()).count();
      }
    } catch (IOException e) {
      throw new ConfigurationException(
          "--dataflows " + jar + ": not a readable jar (" + e.getMessage() + ")", e);
    }
  }

  /**
   * The dataflows, by name, of every provider {@code loader} finds, each given {@code nodeConfig}.
   */
  static Map<String, Dataflow> load(ClassLoader loader, Config nodeConfig) {
    Map<String, Dataflow> dataflows = new LinkedHashMap<>();
    Map<String, String> givenBy = new LinkedHashMap<>();
    try {
      for (ServiceLoader.Provider<DataflowProvider> p :
          ServiceLoader.load(DataflowProvider.class, loader).stream().toList()) {
        String provider = p.type().getName();
        List<Dataflow> given;
        try {
          given = p.get().dataflows(nodeConfig);
        } catch (ServiceConfigurationError e) {
          throw failed(provider, e.getCause() == null ? e : e.getCause());
        } catch (RuntimeException | LinkageError e) {
          throw failed(provider, e);
        }
        if (given == null) {
          throw new ConfigurationException(
              "--dataflows: provider " + provider + " returned null, not a list of dataflows");
        }
        for (Dataflow d : given) {
          if (d == null) {
            throw new ConfigurationException(
                "--dataflows: provider " + provider + " returned a null dataflow");
          }
          String before = givenBy.putIfAbsent(d.name(), "provider " + provider);
          if (before != null) {
            throw new ConfigurationException(
                "--dataflows: two dataflows are named \""
                    + d.name()
                    + "\": one from "
                    + before
                    + ", one from provider "
                    + provider
                    + " (a job's id is its dataflow's name)");
          }
          dataflows.put(d.name(), d);
        }
      }
    } catch (ServiceConfigurationError e) {
      throw new ConfigurationException("--dataflows: " + e.getMessage(), e);
    }
    return dataflows;
  }

  private static ConfigurationException failed(String provider, Throwable e) {
    return new ConfigurationException("--dataflows: provider " + provider + " failed: " + e, e);
  }
}
