package hwfacts.testsupport;

import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.apache.lucene.util.Version;
import org.elasticsearch.Build;
import org.elasticsearch.action.admin.cluster.state.ClusterStateRequest;
import org.elasticsearch.action.admin.cluster.state.ClusterStateResponse;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.IndexScopedSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.settings.SettingsFilter;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestController;
import org.elasticsearch.rest.RestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.rest.action.RestBuilderListener;
import org.elasticsearch.xcontent.XContentBuilder;

/**
 * `GET /` and `HEAD /` (the client's info() and ping()), which in the distribution come from the
 * rest-root module; that module is not published to Maven Central. Same fields as the original:
 * name, cluster_name, cluster_uuid, version{...}, tagline.
 */
public final class RootInfoPlugin extends Plugin implements ActionPlugin {

    @Override
    public Collection<RestHandler> getRestHandlers(final Settings settings, final NamedWriteableRegistry namedWriteableRegistry,
            final RestController restController, final ClusterSettings clusterSettings,
            final IndexScopedSettings indexScopedSettings, final SettingsFilter settingsFilter,
            final IndexNameExpressionResolver indexNameExpressionResolver, final Supplier<DiscoveryNodes> nodesInCluster,
            final Predicate<NodeFeature> clusterSupportsFeature) {
        return List.of(new RootHandler(Node.NODE_NAME_SETTING.get(settings)));
    }

    private static final class RootHandler extends BaseRestHandler {
        private final String nodeName;

        RootHandler(final String nodeName) {
            this.nodeName = nodeName;
        }

        @Override
        public String getName() {
            return "hwfacts_root_info";
        }

        @Override
        public List<Route> routes() {
            return List.of(new Route(RestRequest.Method.GET, "/"), new Route(RestRequest.Method.HEAD, "/"));
        }

        @Override
        protected RestChannelConsumer prepareRequest(final RestRequest request, final NodeClient client) {
            if (request.method() == RestRequest.Method.HEAD) {
                return channel -> channel.sendResponse(new RestResponse(RestStatus.OK, RestResponse.TEXT_CONTENT_TYPE, ""));
            }
            final ClusterStateRequest state = new ClusterStateRequest(TimeValue.THIRTY_SECONDS).clear().metadata(true).local(true);
            return channel -> client.admin().cluster().state(state, new RestBuilderListener<ClusterStateResponse>(channel) {
                @Override
                public RestResponse buildResponse(final ClusterStateResponse response, final XContentBuilder builder)
                        throws Exception {
                    final Build build = Build.current();
                    builder.startObject();
                    builder.field("name", nodeName);
                    builder.field("cluster_name", response.getClusterName().value());
                    builder.field("cluster_uuid", response.getState().metadata().clusterUUID());
                    builder.startObject("version")
                            .field("number", build.qualifiedVersion())
                            .field("build_flavor", build.flavor())
                            .field("build_type", build.type().displayName())
                            .field("build_hash", build.hash())
                            .field("build_date", build.date())
                            .field("build_snapshot", build.isSnapshot())
                            .field("lucene_version", Version.LATEST.toString())
                            .field("minimum_wire_compatibility_version", build.minWireCompatVersion())
                            .field("minimum_index_compatibility_version", build.minIndexCompatVersion())
                            .endObject();
                    builder.field("tagline", "You Know, for Search");
                    builder.endObject();
                    return new RestResponse(RestStatus.OK, builder);
                }
            });
        }
    }
}
