package onager.kernel.client;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import java.io.File;

/**
 * A file's contents, read as they go out with the connection's back-pressure,
 * never whole in memory; its length is the Content-Length.
 */
final class FileBody implements RequestBody {
  private final File file;

  FileBody(File file) {
    this.file = file;
  }

  @Override
  public boolean repeatable() {
    return true;
  }

  @Override
  public Future<HttpClientResponse> send(HttpClientRequest request, Vertx vertx) {
    request.putHeader(HttpHeaders.CONTENT_LENGTH, Long.toString(file.length()));
    return vertx.fileSystem().open(file.getPath(), new OpenOptions().setRead(true).setWrite(false).setCreate(false))
        .compose(f -> request.send(f).andThen(done -> closeQuietly(f)));
  }

  private static void closeQuietly(AsyncFile f) {
    f.close();
  }
}
