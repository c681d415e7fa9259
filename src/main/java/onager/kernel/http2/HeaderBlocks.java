package onager.kernel.http2;

import io.netty.buffer.ByteBuf;

/**
 * Follows the frame heads in the bytes a client sends, to know whether a header
 * block is open: a HEADERS frame has come, and the frame with END_HEADERS that
 * ends it (RFC 9113 §4.3, §6.10) has not all arrived. Netty's frame reader tells
 * its listener of a header block only once the block is whole, so nothing else
 * sees a client that begins a request's head and never ends it (slowloris, for
 * which the connection's {@link H2Clock} has the header timeout). Payloads are
 * skipped whole; only the nine bytes of each frame's head are read. On the
 * event loop.
 */
final class HeaderBlocks {
  // RFC 9113 §3.4: the client's connection preface, before its first frame.
  private static final int PREFACE = 24;
  private static final int FRAME_HEAD = 9;
  private static final int HEADERS = 0x1;
  private static final int CONTINUATION = 0x9;
  private static final int END_HEADERS = 0x4;

  private int preface = PREFACE;
  // Bytes of the current frame's head seen so far, when it spans reads, and its fields.
  private int headAt;
  private int length;
  private int type;
  private int flags;
  private int payloadLeft;
  private boolean open;
  private long opened;

  /** Follows {@code in}'s readable bytes, which are the next the client sent; {@code in} is left as it was. */
  void read(ByteBuf in) {
    int i = in.readerIndex();
    int end = in.writerIndex();
    while (i < end) {
      if (preface > 0) {
        int n = Math.min(preface, end - i);
        preface -= n;
        i += n;
      } else if (payloadLeft > 0) {
        int n = Math.min(payloadLeft, end - i);
        payloadLeft -= n;
        i += n;
        if (payloadLeft == 0) payloadDone();
      } else if (headAt == 0 && end - i >= FRAME_HEAD) {
        length = in.getUnsignedMedium(i);
        type = in.getUnsignedByte(i + 3);
        flags = in.getUnsignedByte(i + 4);
        i += FRAME_HEAD;
        headDone();
      } else {
        int b = in.getUnsignedByte(i++);
        switch (headAt++) {
          case 0 -> length = b;
          case 1, 2 -> length = (length << 8) | b;
          case 3 -> type = b;
          case 4 -> flags = b;
          case FRAME_HEAD - 1 -> {
            headAt = 0;
            headDone();
          }
          default -> { }
        }
      }
    }
  }

  private void headDone() {
    if (type == HEADERS && !open) {
      open = true;
      opened++;
    }
    payloadLeft = length;
    if (length == 0) payloadDone();
  }

  private void payloadDone() {
    if ((type == HEADERS || type == CONTINUATION) && (flags & END_HEADERS) != 0) open = false;
  }

  /** True while a header block is open. */
  boolean open() {
    return open;
  }

  /** How many header blocks have opened: tells one open block from the next. */
  long opened() {
    return opened;
  }
}
