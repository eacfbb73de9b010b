/**
 * Short-lived reads of rows every launch needs and administrators rarely change (institution settings, a
 * platform's proctoring account, whether it has a logo), shared per database handle within this process (or per
 * other owner object: the hosted links keep the tokens they signed this second).
 * A store that writes those rows clears its cache, so every store on the same handle sees its own process's
 * changes at once; another process's (a replica, the CLI on PostgreSQL) as soon as its change notice arrives
 * (db/change-notices.ts), and within `ttlMs` if that notice is lost. Concurrent misses share one read; a failed
 * read is not kept.
 */
export interface ReadCache<V> {
  get(key: string, load: () => Promise<V>): Promise<V>;
  clear(): void;
}

/** How long these reads are reused: long enough to serve a class-start burst, short enough for a replica. */
export const READ_CACHE_MS = 5000;
const MAX_ENTRIES = 10_000;

let generation = 0;

/** Which reads are still current: every cache in this process keeps only what it read in this generation. */
export function readGeneration(): number {
  return generation;
}

/**
 * Every cache of this process (these, the ltijs store's and the known deployments) stops reusing what it has
 * read so far: another process changed rows they keep, or its notices may have been missed.
 */
export function invalidateReadCaches(): void {
  generation += 1;
}

const caches = new WeakMap<object, Map<string, ReadCache<unknown>>>();

export function readCache<V>(db: object, name: string, ttlMs = READ_CACHE_MS): ReadCache<V> {
  let byName = caches.get(db);
  if (!byName) {
    byName = new Map();
    caches.set(db, byName);
  }
  const existing = byName.get(name);
  if (existing) return existing as ReadCache<V>;
  let entries = new Map<string, { value: Promise<V>; until: number; generation: number }>();
  const cache: ReadCache<V> = {
    get(key, load) {
      const now = Date.now();
      const hit = entries.get(key);
      if (hit && hit.until > now && hit.generation === generation) return hit.value;
      const value = load();
      if (ttlMs <= 0) return value;
      if (entries.size >= MAX_ENTRIES) entries.clear();
      const entry = { value, until: now + ttlMs, generation };
      const owner = entries;
      owner.set(key, entry);
      value.catch(() => {
        if (owner.get(key) === entry) owner.delete(key);
      });
      return value;
    },
    clear() {
      // A new map: a read still in flight from before the change lands in the old one, never seen again.
      entries = new Map();
    },
  };
  byName.set(name, cache as ReadCache<unknown>);
  return cache;
}

/** Empties every read cache of this handle: after changes made with SQL outside the stores (a platform move). */
export function clearReadCaches(db: object): void {
  for (const cache of caches.get(db)?.values() ?? []) cache.clear();
}
