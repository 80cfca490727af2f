package hwfacts.testsupport;

import java.io.Reader;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.lucene.analysis.charfilter.MappingCharFilter;
import org.apache.lucene.analysis.charfilter.NormalizeCharMap;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.index.IndexSettings;
import org.elasticsearch.index.analysis.AbstractCharFilterFactory;
import org.elasticsearch.index.analysis.Analysis;
import org.elasticsearch.index.analysis.CharFilterFactory;
import org.elasticsearch.index.analysis.NormalizingCharFilterFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;

/**
 * The `mapping` char_filter (`"type": "mapping"` with `mappings` or `mappings_path`), which in the
 * Elasticsearch distribution comes from the analysis-common module. That module is not published
 * to Maven Central, and mappings/facts-index.json needs this one component of it (the `nocase`
 * normalizer), so the test node provides it here on top of Lucene's MappingCharFilter, with the
 * same rule syntax: `lhs => rhs`, both sides with the escapes \\ \" \' \n \t \r \b \f \\uXXXX.
 * Usable in normalizers, like the original.
 */
public final class MappingCharFilterPlugin extends Plugin implements AnalysisPlugin {

    @Override
    public Map<String, AnalysisProvider<CharFilterFactory>> getCharFilters() {
        return Map.of("mapping", new AnalysisProvider<>() {
            @Override
            public CharFilterFactory get(final IndexSettings indexSettings, final Environment env, final String name,
                    final Settings settings) {
                return new Factory(name, parseRules(Analysis.getWordList(env, settings, "mappings")));
            }

            // Only usable with its settings: never instantiated bare by name.
            @Override
            public boolean requiresAnalysisSettings() {
                return true;
            }
        });
    }

    private static final class Factory extends AbstractCharFilterFactory implements NormalizingCharFilterFactory {
        private final NormalizeCharMap map;

        Factory(final String name, final NormalizeCharMap map) {
            super(name);
            this.map = map;
        }

        @Override
        public Reader create(final Reader reader) {
            return new MappingCharFilter(map, reader);
        }
    }

    private static final Pattern RULE = Pattern.compile("(.*)\\s*=>\\s*(.*)\\s*$");

    static NormalizeCharMap parseRules(final List<String> rules) {
        if (rules == null) {
            throw new IllegalArgumentException("mapping requires either `mappings` or `mappings_path` to be configured");
        }
        final NormalizeCharMap.Builder builder = new NormalizeCharMap.Builder();
        for (final String rule : rules) {
            final Matcher m = RULE.matcher(rule);
            if (!m.find()) {
                throw new IllegalArgumentException("Invalid Mapping Rule : [" + rule + "]");
            }
            final String lhs = unescape(m.group(1).trim());
            final String rhs = unescape(m.group(2).trim());
            if (lhs.isEmpty()) {
                throw new IllegalArgumentException("Invalid Mapping Rule : [" + rule + "]. Illegal mapping.");
            }
            builder.add(lhs, rhs);
        }
        return builder.build();
    }

    private static String unescape(final String s) {
        final StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                c = s.charAt(++i);
                switch (c) {
                    case 'n' -> c = '\n';
                    case 't' -> c = '\t';
                    case 'r' -> c = '\r';
                    case 'b' -> c = '\b';
                    case 'f' -> c = '\f';
                    case 'u' -> {
                        if (i + 4 >= s.length()) {
                            throw new IllegalArgumentException("Invalid escaped char in [" + s + "]");
                        }
                        c = (char) Integer.parseInt(s.substring(i + 1, i + 5), 16);
                        i += 4;
                    }
                    default -> { } // \\ \" \' and anything else stand for themselves
                }
            }
            out.append(c);
        }
        return out.toString();
    }
}
