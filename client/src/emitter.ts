// A tiny typed event emitter (the client must not depend on Node's events module in browsers).
// A listener that throws does not stop the others or the connection: its error is rethrown on
// a fresh task, where the host reports it as uncaught.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Listener = (...args: any[]) => void;

export class TypedEmitter<Events extends { [E in keyof Events]: Listener }> {
  private readonly listeners = new Map<keyof Events, Set<Listener>>();

  /** Adds a listener; returns a function that removes it. */
  on<E extends keyof Events>(event: E, fn: Events[E]): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return () => this.off(event, fn);
  }

  off<E extends keyof Events>(event: E, fn: Events[E]): void {
    this.listeners.get(event)?.delete(fn);
  }

  protected emit<E extends keyof Events>(event: E, ...args: Parameters<Events[E]>): void {
    for (const fn of [...(this.listeners.get(event) ?? [])]) {
      try {
        fn(...args);
      } catch (err) {
        setTimeout(() => {
          throw err;
        }, 0);
      }
    }
  }

  protected listenerCount(event: keyof Events): number {
    return this.listeners.get(event)?.size ?? 0;
  }
}
