package hwfacts.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.elasticsearch.Build;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.node.ClasspathPluginsNode;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.transport.netty4.Netty4Plugin;

/**
 * Starts one real Elasticsearch node on loopback for tests and CI, and keeps it up until the
 * process is killed (SIGTERM closes the node cleanly).
 *
 * It is the server jar plus the netty4 module (HTTP and transport) from Maven Central, and
 * MappingCharFilterPlugin and RootInfoPlugin from here (stand-ins for the two pieces of unpublished
 * modules that the project needs); no x-pack (so no security), no other modules. The Node is
 * constructed directly instead of through the distribution's bootstrap, so there is no security
 * manager / entitlement agent, no bootstrap checks and no memory locking. Native access uses the
 * system's libzstd (see linkSystemZstd); the SIMD vector library (libvec) is absent and off,
 * which only matters for dense_vector fields.
 *
 * Environment:
 *   ELASTICSEARCH_PORT            HTTP port (default 9260)
 *   ELASTICSEARCH_TRANSPORT_PORT  transport port (default HTTP port + 100)
 *   ELASTICSEARCH_HOME            node home: config, data and logs (required)
 */
public final class ElasticsearchTestNode {

    private ElasticsearchTestNode() {
    }

    private static String env(final String name, final String dflt) {
        final String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v.trim();
    }

    // Console only (services.sh sends stdout to a log file). Deprecations are logged there and,
    // as in the distribution's log4j2.properties, returned to the client as Warning headers.
    private static final String LOG4J2 = """
            status = error
            appender.console.type = Console
            appender.console.name = console
            appender.console.layout.type = PatternLayout
            appender.console.layout.pattern = [%d{ISO8601}][%-5p][%-25c{1.}] [%node_name]%marker %m%n
            rootLogger.level = info
            rootLogger.appenderRef.console.ref = console
            appender.header_warning.type = HeaderWarningAppender
            appender.header_warning.name = header_warning
            logger.deprecation.name = org.elasticsearch.deprecation
            logger.deprecation.level = warn
            logger.deprecation.appenderRef.header_warning.ref = header_warning
            """;

    /**
     * The distribution ships libzstd under lib/platform/; without it Elasticsearch disables all
     * of its native access (with a warning). Point it at the system's libzstd.so.1 instead, when
     * there is one (Debian: libzstd1, part of every base system).
     */
    private static void linkSystemZstd(final Path dir) throws java.io.IOException {
        if (System.getProperty("es.nativelibs.path") != null) {
            return;
        }
        for (final String cand : List.of("/lib/x86_64-linux-gnu/libzstd.so.1", "/usr/lib/x86_64-linux-gnu/libzstd.so.1",
                "/lib/aarch64-linux-gnu/libzstd.so.1", "/usr/lib/aarch64-linux-gnu/libzstd.so.1",
                "/usr/lib64/libzstd.so.1", "/usr/lib/libzstd.so.1")) {
            final Path lib = Path.of(cand);
            if (Files.exists(lib)) {
                Files.createDirectories(dir);
                final Path link = dir.resolve(System.mapLibraryName("zstd"));
                Files.deleteIfExists(link);
                Files.createSymbolicLink(link, lib.toRealPath());
                System.setProperty("es.nativelibs.path", dir.toString());
                // The SIMD vector library (libvec) ships only in the distribution; without this,
                // failing to load it would disable native access as a whole.
                System.setProperty("org.elasticsearch.nativeaccess.enableVectorLibrary", "false");
                return;
            }
        }
    }

    public static void main(final String[] args) throws Exception {
        final int httpPort = Integer.parseInt(env("ELASTICSEARCH_PORT", "9260"));
        final String transportPort = env("ELASTICSEARCH_TRANSPORT_PORT", String.valueOf(httpPort + 100));
        final String home = env("ELASTICSEARCH_HOME", null);
        if (home == null) {
            System.err.println("ELASTICSEARCH_HOME is not set");
            System.exit(2);
        }
        final Path homeDir = Path.of(home).toAbsolutePath();
        final Path configDir = Files.createDirectories(homeDir.resolve("config"));
        Files.createDirectories(homeDir.resolve("data"));
        Files.createDirectories(homeDir.resolve("logs"));
        Files.writeString(configDir.resolve("log4j2.properties"), LOG4J2);
        linkSystemZstd(homeDir.resolve("native"));

        final Settings settings = Settings.builder()
                .put("path.home", homeDir.toString())
                .put("path.data", homeDir.resolve("data").toString())
                .put("path.logs", homeDir.resolve("logs").toString())
                .put("cluster.name", "hwfacts-test")
                .put("node.name", "hwfacts-es-1")
                .put("network.host", "127.0.0.1")
                .put("http.port", String.valueOf(httpPort))
                .put("transport.port", transportPort)
                .put("discovery.type", "single-node")
                .putList("node.roles", "master", "data", "ingest")
                // Tests run on small/full CI disks: never go read-only on watermarks.
                .put("cluster.routing.allocation.disk.threshold_enabled", false)
                // Tests delete indices by wildcard when cleaning up.
                .put("action.destructive_requires_name", false)
                .build();

        final Node node;
        try {
            LogConfigurator.registerErrorListener();
            LogConfigurator.setNodeName("hwfacts-es-1");
            LogConfigurator.setClusterName("hwfacts-test");
            final Environment environment =
                    InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), configDir, () -> "hwfacts-es-1");
            LogConfigurator.configure(environment, true);
            node = new ClasspathPluginsNode(environment, List.of(Netty4Plugin.class, MappingCharFilterPlugin.class, RootInfoPlugin.class));
        } catch (final Throwable t) {
            t.printStackTrace();
            System.exit(1);
            return;
        }

        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(20, TimeUnit.SECONDS);
            } catch (final Exception e) {
                System.err.println("close failed: " + e);
            } finally {
                stopped.countDown();
            }
        }, "elasticsearch-test-node-shutdown"));

        try {
            node.start();
        } catch (final Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }

        System.out.println("ELASTICSEARCH_READY version=" + Build.current().version() + " http=127.0.0.1:" + httpPort);
        System.out.flush();
        stopped.await();
    }
}
