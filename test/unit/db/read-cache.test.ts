import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clearReadCaches, readCache } from '../../../src/db/read-cache.js';

describe('read caches', () => {
  it('share one read per key and handle until cleared or expired', async () => {
    const db = {};
    let reads = 0;
    const load = async () => ++reads;
    const a = readCache<number>(db, 'settings', 60_000);
    assert.deepEqual(await Promise.all([a.get('k', load), a.get('k', load)]), [1, 1]);
    // Another store on the same handle shares the cache, and its writes clear it.
    const b = readCache<number>(db, 'settings', 60_000);
    assert.equal(await b.get('k', load), 1);
    b.clear();
    assert.equal(await a.get('k', load), 2);
    // Another handle (another database) has its own.
    assert.equal(await readCache<number>({}, 'settings', 60_000).get('k', load), 3);
    clearReadCaches(db);
    assert.equal(await a.get('k', load), 4);
  });

  it('reads again after its time, and keeps no failed read', async () => {
    const db = {};
    let reads = 0;
    const cache = readCache<number>(db, 'short', 20);
    assert.equal(await cache.get('k', async () => ++reads), 1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(await cache.get('k', async () => ++reads), 2);
    const failing = readCache<number>(db, 'failing', 60_000);
    await assert.rejects(failing.get('k', () => Promise.reject(new Error('outage'))), /outage/);
    assert.equal(await failing.get('k', async () => 7), 7);
  });
});
