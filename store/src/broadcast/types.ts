/**
 * Broadcast: news one process tells the other processes of its deployment, best effort
 * (a process that is away misses what is said meanwhile), for state every process keeps
 * for itself but should learn from the others, e.g. that a provider's circuit opened.
 * The scaled mode's gateways share it over Redis pub/sub; the embedded mode runs one
 * process, so there is no one to tell.
 */
export interface Broadcast<T> {
  /** Tells every other process (never this one). Never throws: news that cannot be sent is dropped. */
  publish(news: T): void;
  /**
   * `listener` hears what the other processes publish, as JSON read it: it must check
   * the shape (another version of the gateway may have sent it) and must not throw.
   */
  subscribe(listener: (news: unknown) => void): void;
  close(): Promise<void>;
}
