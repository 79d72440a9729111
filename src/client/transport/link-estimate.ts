// Defaults that follow the link, not the hostname. A loopback address used to mean "this
// machine": compression off, 3 pages in flight. Through a loopback address that forwards to a
// distant platform (an SSH tunnel, `kubectl port-forward`, a local proxy) that made a walk 2 to 4
// times slower than it could be. So the client measures its answers instead: the shortest time to
// the first byte of an answer (a round trip plus the server's work). On this machine it is a few
// ms; through a tunnel it never drops below the tunnel's round trip.

/** What a link is taken to be: near (bytes and round trips cost next to nothing) or far. */
export type LinkKind = "near" | "far";

/**
 * At most this many ms to the first byte, at best, for a near link. This machine answers a
 * request for one `_id` in 1 to 5 ms, loaded; a tunnel adds its round trip to every answer (tens
 * of ms to another region, 40 ms in the bench). A link under 20 ms is taken as near: bandwidth is
 * not measured, so a fast tunnel to a narrow line would go uncompressed (give `compression: true`).
 */
export const NEAR_FIRST_BYTE_MS = 20;
/** Pages in flight for each kind: 3 keep a server on this machine busy; 6 halve a far link's round-trip waits. */
const CONCURRENCY: Record<LinkKind, number> = { near: 3, far: 6 };

/**
 * The client's running estimate of its link: the shortest time to the first byte of any answer
 * so far. Until the first answer it goes by the hostname (a loopback name is guessed near), and
 * a loopback client measures beside its login or before its first walk (`Transport.measureLink`):
 * one GET of the API's base path without credentials, which any server answers at once (a 404 or
 * 401) without touching data (a local platform logs it as a 404). Page
 * answers are poor first measurements (a loaded machine took 20 to 90 ms to build and deliver
 * the first pages of 500 records, and a client busy parsing delays its own timing), but the
 * shortest time can only fall, so a loaded machine is still recognised as near after a few
 * pages, and a tunnel, whose every answer carries its round trip, stays far.
 */
export class LinkEstimate {
  #firstByteMs = Infinity;
  readonly #guess: LinkKind;

  constructor(guess: LinkKind) {
    this.#guess = guess;
  }

  /** The hostname's guess, kept until an answer says better. */
  get guess(): LinkKind {
    return this.#guess;
  }

  /** Records one answer: ms from sending the request to its headers. */
  observe(firstByteMs: number): void {
    if (firstByteMs >= 0 && firstByteMs < this.#firstByteMs) this.#firstByteMs = firstByteMs;
  }

  /** undefined until the first answer. */
  get kind(): LinkKind | undefined {
    if (this.#firstByteMs === Infinity) return undefined;
    return this.#firstByteMs <= NEAR_FIRST_BYTE_MS ? "near" : "far";
  }

  /** Whether to ask for compressed bodies: yes until the link is known to be near. */
  get compression(): boolean {
    return this.kind !== "near";
  }

  /** Pages in flight for a walk that does not say: the measured kind's, else the hostname's guess. */
  get concurrency(): number {
    return CONCURRENCY[this.kind ?? this.#guess];
  }
}
