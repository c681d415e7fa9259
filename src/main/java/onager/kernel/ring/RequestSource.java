package onager.kernel.ring;

/**
 * Where a {@link RingRequest} gets its values: the kernel's view of one HTTP
 * request. Each call computes the value the first time and returns the same
 * value after, from any thread.
 */
public interface RequestSource {
  /** The value for the key at {@code index} (see {@link RingKeys}). */
  Object field(int index);

  /** The {@link RingKeys} bit set of the keys this request has. */
  int presentKeys();

  /**
   * A router's route took the request ({@code template} its path as written;
   * {@code mount} a mount, whose handler may route the rest of the path): for
   * the meters, which tag a request by its route. Nothing by default.
   */
  default void routed(String template, boolean mount) {}
}
