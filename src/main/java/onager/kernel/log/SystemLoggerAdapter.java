package onager.kernel.log;

import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * An SLF4J logger that hands its records to the {@link System.Logger} of the same
 * name, for a JVM where SLF4J has no provider (see {@link Logs}).
 */
final class SystemLoggerAdapter extends LegacyAbstractLogger {
  private static final long serialVersionUID = 1L;

  private final transient System.Logger target;

  SystemLoggerAdapter(String name) {
    this.name = name;
    this.target = System.getLogger(name);
  }

  private static System.Logger.Level levelOf(Level level) {
    return switch (level) {
      case TRACE -> System.Logger.Level.TRACE;
      case DEBUG -> System.Logger.Level.DEBUG;
      case INFO -> System.Logger.Level.INFO;
      case WARN -> System.Logger.Level.WARNING;
      case ERROR -> System.Logger.Level.ERROR;
    };
  }

  @Override
  public boolean isTraceEnabled() {
    return target.isLoggable(System.Logger.Level.TRACE);
  }

  @Override
  public boolean isDebugEnabled() {
    return target.isLoggable(System.Logger.Level.DEBUG);
  }

  @Override
  public boolean isInfoEnabled() {
    return target.isLoggable(System.Logger.Level.INFO);
  }

  @Override
  public boolean isWarnEnabled() {
    return target.isLoggable(System.Logger.Level.WARNING);
  }

  @Override
  public boolean isErrorEnabled() {
    return target.isLoggable(System.Logger.Level.ERROR);
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
      Throwable thrown) {
    // Formatted here, in SLF4J's {} style: System.Logger's own formatting is MessageFormat's.
    String message = MessageFormatter.basicArrayFormat(pattern, arguments);
    if (thrown == null) {
      target.log(levelOf(level), message);
    } else {
      target.log(levelOf(level), message, thrown);
    }
  }
}
