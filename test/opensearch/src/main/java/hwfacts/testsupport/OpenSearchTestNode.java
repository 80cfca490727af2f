package hwfacts.testsupport;

import java.util.concurrent.CountDownLatch;

import org.codelibs.opensearch.runner.OpenSearchRunner;
import org.opensearch.Version;

/**
 * Starts one real OpenSearch node on loopback for tests and CI, and keeps it up
 * until the process is killed (SIGTERM closes the node cleanly).
 *
 * Environment:
 *   OPENSEARCH_PORT            HTTP port (default 9250)
 *   OPENSEARCH_TRANSPORT_PORT  transport port (default HTTP port + 100)
 *   OPENSEARCH_HOME            node home: config, data and logs (required)
 */
public final class OpenSearchTestNode {

    private OpenSearchTestNode() {
    }

    private static String env(final String name, final String dflt) {
        final String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v.trim();
    }

    public static void main(final String[] args) throws Exception {
        final int httpPort = Integer.parseInt(env("OPENSEARCH_PORT", "9250"));
        final String transportPort = env("OPENSEARCH_TRANSPORT_PORT", String.valueOf(httpPort + 100));
        final String home = env("OPENSEARCH_HOME", null);
        if (home == null) {
            System.err.println("OPENSEARCH_HOME is not set");
            System.exit(2);
        }

        final OpenSearchRunner runner = new OpenSearchRunner();
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                runner.close();
            } catch (final Exception e) {
                System.err.println("close failed: " + e);
            } finally {
                stopped.countDown();
            }
        }, "opensearch-test-node-shutdown"));

        runner.onBuild((index, settings) -> {
            settings.put("network.host", "127.0.0.1");
            settings.put("http.port", String.valueOf(httpPort));
            settings.put("transport.port", transportPort);
            settings.put("discovery.type", "single-node");
            settings.putList("node.roles", "cluster_manager", "data", "ingest");
            // Tests run on small/full CI disks: never go read-only on watermarks.
            settings.put("cluster.routing.allocation.disk.threshold_enabled", false);
            // One node: replicas can never be assigned, so default them to 0
            // (indices created without settings are green, not yellow).
            settings.put("cluster.default_number_of_replicas", 0);
            // Tests delete indices by wildcard when cleaning up.
            settings.put("action.destructive_requires_name", false);
        });

        try {
            runner.build(OpenSearchRunner.newConfigs()
                    .basePath(home)
                    .numOfNode(1)
                    .clusterName("hwfacts-test")
                    .printOnFailure());
            runner.ensureYellow();
        } catch (final Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }

        System.out.println("OPENSEARCH_READY version=" + Version.CURRENT + " http=127.0.0.1:" + httpPort);
        System.out.flush();
        stopped.await();
    }
}
