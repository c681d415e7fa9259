package onager.kernel.http1;

/** What the {@link StrictRequestDecoder} tells its connection about the request heads it reads. */
interface HeadListener {
  /** A head without Content-Length, Transfer-Encoding, Expect, Upgrade or Connection. */
  int HEAD_PLAIN = 0;
  /** Content-Length, Expect, Upgrade or Connection: the headers tell what follows. */
  int HEAD_TO_CHECK = 1;
  /** Transfer-Encoding: a body follows. */
  int HEAD_BODY = 2;

  /** Part of a request head is here and the rest is not. */
  void headPending();

  /** The head of the request about to be handed on passed its checks, and is of this kind. */
  void headSeen(int kind);
}
