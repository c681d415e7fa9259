package onager.kernel.log;

import java.util.logging.LogRecord;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * An SLF4J logger that hands its records to the java.util.logging logger of the same
 * name, for a JVM where SLF4J has no provider (see {@link Logs}).
 */
final class JulLogger extends LegacyAbstractLogger {
  private static final long serialVersionUID = 1L;

  private final transient java.util.logging.Logger target;

  JulLogger(String name) {
    this.name = name;
    this.target = java.util.logging.Logger.getLogger(name);
  }

  private static java.util.logging.Level levelOf(Level level) {
    return switch (level) {
      case TRACE -> java.util.logging.Level.FINEST;
      case DEBUG -> java.util.logging.Level.FINE;
      case INFO -> java.util.logging.Level.INFO;
      case WARN -> java.util.logging.Level.WARNING;
      case ERROR -> java.util.logging.Level.SEVERE;
    };
  }

  @Override
  public boolean isTraceEnabled() {
    return target.isLoggable(java.util.logging.Level.FINEST);
  }

  @Override
  public boolean isDebugEnabled() {
    return target.isLoggable(java.util.logging.Level.FINE);
  }

  @Override
  public boolean isInfoEnabled() {
    return target.isLoggable(java.util.logging.Level.INFO);
  }

  @Override
  public boolean isWarnEnabled() {
    return target.isLoggable(java.util.logging.Level.WARNING);
  }

  @Override
  public boolean isErrorEnabled() {
    return target.isLoggable(java.util.logging.Level.SEVERE);
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
      Throwable thrown) {
    // Formatted here, in SLF4J's {} style: JUL's own formatting is MessageFormat's.
    LogRecord record = new LogRecord(levelOf(level), MessageFormatter.basicArrayFormat(pattern, arguments));
    record.setLoggerName(name);
    // No source class: JUL's formatters then name the logger, not this class.
    record.setSourceClassName(null);
    record.setThrown(thrown);
    target.log(record);
  }
}
