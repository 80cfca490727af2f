package org.elasticsearch.node;

import java.util.Collection;
import java.util.List;

import org.elasticsearch.env.Environment;
import org.elasticsearch.plugins.ClasspathPluginsService;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginsLoader;
import org.elasticsearch.plugins.PluginsService;

/**
 * A real Elasticsearch Node whose plugins (modules) are given as classes on the classpath.
 *
 * Lives in org.elasticsearch.node because the hooks for this (NodeConstruction and
 * NodeServiceProvider#newPluginService) are package-private; this is what the test framework's
 * MockNode does too. Everything else is the production NodeServiceProvider.
 */
public final class ClasspathPluginsNode extends Node {

    public ClasspathPluginsNode(final Environment environment, final Collection<Class<? extends Plugin>> plugins) {
        super(NodeConstruction.prepareConstruction(environment, null, new NodeServiceProvider() {
            @Override
            PluginsService newPluginService(final Environment env, final PluginsLoader pluginsLoader) {
                return new ClasspathPluginsService(env.settings(), env, List.copyOf(plugins));
            }
        }, true));
    }
}
