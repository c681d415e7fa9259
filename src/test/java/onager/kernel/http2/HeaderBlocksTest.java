package onager.kernel.http2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The header blocks a client's bytes open and close, however the reads cut them:
 * whole, one byte at a time, or split inside a frame's head or payload.
 */
final class HeaderBlocksTest {
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final int DATA = 0x0;
  private static final int HEADERS = 0x1;
  private static final int SETTINGS = 0x4;
  private static final int CONTINUATION = 0x9;
  private static final int END_STREAM = 0x1;
  private static final int END_HEADERS = 0x4;

  private static byte[] frame(int type, int flags, int stream, int length) {
    byte[] f = new byte[9 + length];
    f[0] = (byte) (length >>> 16);
    f[1] = (byte) (length >>> 8);
    f[2] = (byte) length;
    f[3] = (byte) type;
    f[4] = (byte) flags;
    f[5] = (byte) (stream >>> 24);
    f[6] = (byte) (stream >>> 16);
    f[7] = (byte) (stream >>> 8);
    f[8] = (byte) stream;
    // The payload's bytes look like frame heads of a HEADERS frame: they must be skipped, not read.
    for (int i = 9; i < f.length; i++) f[i] = (byte) HEADERS;
    return f;
  }

  private static byte[] join(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) out.writeBytes(p);
    return out.toByteArray();
  }

  // Reads `bytes` in pieces of `piece` bytes; returns whether a block was open after each piece.
  private static boolean[] read(HeaderBlocks blocks, byte[] bytes, int piece) {
    boolean[] open = new boolean[(bytes.length + piece - 1) / piece];
    for (int at = 0, i = 0; at < bytes.length; at += piece, i++) {
      ByteBuf in = Unpooled.wrappedBuffer(bytes, at, Math.min(piece, bytes.length - at));
      int reader = in.readerIndex();
      blocks.read(in);
      assertEquals(reader, in.readerIndex(), "the bytes are left for Netty's reader");
      open[i] = blocks.open();
    }
    return open;
  }

  @Test
  void aBlockInOneFrameOpensAndClosesWithIt() {
    byte[] start = join(PREFACE, frame(SETTINGS, 0, 0, 12));
    byte[] request = frame(HEADERS, END_STREAM | END_HEADERS, 1, 40);
    for (int piece : new int[] {1, 5, 9, 10, 1000}) {
      HeaderBlocks blocks = new HeaderBlocks();
      read(blocks, start, piece);
      assertFalse(blocks.open(), "piece " + piece);
      boolean[] open = read(blocks, request, piece);
      assertFalse(open[open.length - 1], "closed once its last byte came, piece " + piece);
      if (piece < request.length) assertTrue(open[open.length - 2], "open until then, piece " + piece);
      assertEquals(1, blocks.opened());
    }
  }

  @Test
  void aBlockStaysOpenUntilTheContinuationWithEndHeadersHasAllArrived() {
    byte[] bytes = join(PREFACE, frame(SETTINGS, 0, 0, 0), frame(HEADERS, END_STREAM, 3, 20),
        frame(CONTINUATION, 0, 3, 30), frame(CONTINUATION, 0, 3, 0));
    for (int piece : new int[] {1, 7, 1000}) {
      HeaderBlocks blocks = new HeaderBlocks();
      read(blocks, bytes, piece);
      assertTrue(blocks.open(), "piece " + piece);
      read(blocks, frame(CONTINUATION, END_HEADERS, 3, 10), piece);
      assertFalse(blocks.open(), "piece " + piece);
      read(blocks, join(frame(DATA, END_STREAM, 1, 100), frame(HEADERS, END_HEADERS, 5, 10)), piece);
      assertFalse(blocks.open(), "piece " + piece);
      assertEquals(2, blocks.opened(), "piece " + piece);
    }
  }

  @Test
  void aLargeDataFrameOpensNoBlock() {
    HeaderBlocks blocks = new HeaderBlocks();
    read(blocks, join(PREFACE, frame(DATA, 0, 1, 16384), frame(DATA, END_STREAM, 1, 70000)), 4096);
    assertFalse(blocks.open());
    assertEquals(0, blocks.opened());
  }
}
