// JSON records as the Redis store keeps them: a string per record, or nothing.

/** The record a GET returned, or null when there was none. */
export const parse = <T>(raw: string | null): T | null => (raw === null ? null : (JSON.parse(raw) as T));
