package org.elasticsearch.plugins;

import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.elasticsearch.Build;
import org.elasticsearch.action.admin.cluster.node.info.PluginsAndModules;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.plugins.spi.SPIClassIterator;

/**
 * A PluginsService whose plugins are classes already on the application classpath, instead of
 * bundles unpacked under modules/ and plugins/ (which only the distribution has).
 *
 * Lives in org.elasticsearch.plugins for the package-private LoadedPlugin record and the
 * loadPlugin/loadExtensions helpers. The same idea as the test framework's MockPluginsService,
 * without depending on the test framework.
 */
public final class ClasspathPluginsService extends PluginsService {

    private final List<LoadedPlugin> classpathPlugins;

    public ClasspathPluginsService(final Settings settings, final Environment environment,
            final Collection<Class<? extends Plugin>> pluginClasses) {
        super(settings, environment.configDir(),
                new PluginsLoader(Collections.emptySet(), Collections.emptySet(), Collections.emptyMap()));
        final List<LoadedPlugin> loaded = new ArrayList<>();
        for (final Class<? extends Plugin> pluginClass : pluginClasses) {
            final Plugin plugin = loadPlugin(pluginClass, settings, environment.configDir());
            final PluginDescriptor descriptor = new PluginDescriptor(
                    pluginClass.getSimpleName(),
                    "classpath plugin",
                    "NA",
                    Build.current().version(),
                    Integer.toString(Runtime.version().feature()),
                    pluginClass.getName(),
                    null,
                    Collections.emptyList(),
                    false,
                    false,
                    false,
                    false);
            loaded.add(new LoadedPlugin(descriptor, plugin, pluginClass.getClassLoader()));
        }
        loadExtensions(loaded);
        this.classpathPlugins = List.copyOf(loaded);
    }

    @Override
    protected List<LoadedPlugin> plugins() {
        return classpathPlugins;
    }

    @Override
    public PluginsAndModules info() {
        return new PluginsAndModules(
                classpathPlugins.stream().map(LoadedPlugin::descriptor).map(PluginRuntimeInfo::new).toList(),
                List.of());
    }

    /**
     * All plugins share one class loader here, so a plain SPI scan per plugin would find every
     * provider on the classpath once per plugin (the server's own ones included). Keep each
     * provider class once, and only for a plugin whose type its one-argument constructor takes.
     */
    @Override
    public <T> List<? extends T> loadServiceProviders(final Class<T> service) {
        final Map<Class<?>, T> result = new LinkedHashMap<>();
        for (final LoadedPlugin loaded : plugins()) {
            final Plugin plugin = loaded.instance();
            final Iterator<Class<? extends T>> it = SPIClassIterator.get(service, plugin.getClass().getClassLoader());
            while (it.hasNext()) {
                final Class<? extends T> cls = it.next();
                if (result.containsKey(cls)) {
                    continue;
                }
                boolean compatible = true;
                for (final Constructor<?> c : cls.getConstructors()) {
                    if (c.getParameterCount() == 1 && c.getParameterTypes()[0] != plugin.getClass()) {
                        compatible = false;
                        break;
                    }
                }
                if (compatible) {
                    result.put(cls, createExtension(cls, service, plugin));
                }
            }
        }
        return List.copyOf(result.values());
    }
}
