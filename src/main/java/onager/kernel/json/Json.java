package onager.kernel.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.core.util.Separators;

/** The Jackson factory every reader and writer shares, and the pretty printer's layout. */
final class Json {
  private Json() {}

  static final JsonFactory FACTORY = JsonFactory.builder()
      // A shared pool: a thread-local one would give every virtual thread buffers of its own.
      .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
      // Names are canonicalised per factory; String.intern would put request keys in the JVM's table.
      .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
      // A parse error names line and column, never the request's bytes.
      .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
      // Jackson's own faster number conversions (FastDoubleParser, Schubfach): the same values.
      .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
      .enable(StreamReadFeature.USE_FAST_BIG_NUMBER_PARSER)
      .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
      .build();

  /** Two-space indents, one value per line, {@code "key": value}, as JSON.stringify(x, null, 2) lays it out. */
  static final DefaultPrettyPrinter PRETTY;

  static {
    DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
    PRETTY = new DefaultPrettyPrinter()
        .withSeparators(Separators.createDefaultInstance()
            .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
            .withObjectEmptySeparator("")
            .withArrayEmptySeparator(""))
        .withObjectIndenter(indenter)
        .withArrayIndenter(indenter);
  }
}
