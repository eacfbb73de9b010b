// Console sessions in the database: only the id's hash is stored, a session ends after its idle time, after its
// absolute time whatever the activity, and when signed out; expired sessions are removed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Response } from 'express';
import { adminSessionOf, createAdminSessionStore, DEFAULT_SESSION_LIMITS, setAdminSession } from '../../../src/admin/sessions.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';

const LIMITS = { idleSeconds: 60, absoluteSeconds: 3600 };
const hashOf = (id: string) => createHash('sha256').update(id).digest('base64url');

describe('admin sessions', () => {
  let db: TestDatabase;
  before(async () => {
    db = await migratedTestDatabase();
  });
  after(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.query('DELETE FROM admin_sessions');
  });

  /** Moves a session's clocks into the past by the given seconds. */
  async function age(id: string, { idle = 0, created = 0 }: { idle?: number; created?: number }) {
    await db.query(
      `UPDATE admin_sessions SET last_seen_at = last_seen_at - make_interval(secs => $2), created_at = created_at - make_interval(secs => $3) WHERE id_hash = $1`,
      [hashOf(id), idle, created],
    );
  }
  const rows = async () => (await db.query<{ id_hash: string; remote_address: string | null }>('SELECT id_hash, remote_address FROM admin_sessions ORDER BY id_hash')).rows;

  it('keeps 30 minutes of idle time and 8 hours in all by default', () => {
    assert.deepEqual(DEFAULT_SESSION_LIMITS, { idleSeconds: 1800, absoluteSeconds: 28_800 });
  });

  it('creates a session with a random id of 32 bytes and stores only its hash, with the address', async () => {
    const store = createAdminSessionStore(db, LIMITS);
    const before = Date.now();
    const { id, session } = await store.create('192.0.2.7');
    assert.match(id, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(session.idHash, hashOf(id));
    assert.ok(Math.abs(session.createdAt.getTime() - before) < 60_000, 'created now (by the database clock)');
    assert.deepEqual(await rows(), [{ id_hash: hashOf(id), remote_address: '192.0.2.7' }]);
    const other = await store.create(undefined);
    assert.notEqual(other.id, id);
    assert.equal((await rows()).find((row) => row.id_hash === hashOf(other.id))?.remote_address, null);
  });

  it('finds a live session by its id, not by its hash', async () => {
    const store = createAdminSessionStore(db, LIMITS);
    const { id, session } = await store.create('192.0.2.7');
    const touched = await store.touch(id);
    assert.deepEqual(touched, session);
    assert.equal(await store.touch(session.idHash), undefined);
    assert.equal(await store.touch('unknown'), undefined);
  });

  it('restarts the idle clock on each request', async () => {
    const store = createAdminSessionStore(db, LIMITS);
    const { id } = await store.create(undefined);
    await age(id, { idle: 50 });
    assert.ok(await store.touch(id));
    await age(id, { idle: 50 });
    assert.ok(await store.touch(id), 'the last request was 50 s ago, not 100 s');
  });

  it('ends a session idle longer than its idle time, and deletes it', async () => {
    const store = createAdminSessionStore(db, LIMITS);
    const { id } = await store.create(undefined);
    const { id: live } = await store.create(undefined);
    await age(id, { idle: 61 });
    assert.equal(await store.touch(id), undefined);
    assert.deepEqual((await rows()).map((row) => row.id_hash), [hashOf(live)], 'the expired row is gone, the live one kept');
  });

  it('ends a session older than its absolute time however active, and deletes it', async () => {
    const store = createAdminSessionStore(db, LIMITS);
    const { id } = await store.create(undefined);
    await age(id, { created: 3601 });
    assert.equal(await store.touch(id), undefined);
    assert.deepEqual(await rows(), []);
  });

  it('keeps a session within both limits', async () => {
    const store = createAdminSessionStore(db, LIMITS);
    const { id } = await store.create(undefined);
    await age(id, { idle: 55, created: 3550 });
    assert.ok(await store.touch(id));
  });

  it('ends a session on sign-out, only that one', async () => {
    const store = createAdminSessionStore(db, LIMITS);
    const { id } = await store.create(undefined);
    const { id: other } = await store.create(undefined);
    await store.end(id);
    assert.equal(await store.touch(id), undefined);
    assert.ok(await store.touch(other));
  });

  it('removes expired sessions of others when a session starts, and keeps live ones', async () => {
    const store = createAdminSessionStore(db, LIMITS);
    const { id: idle } = await store.create(undefined);
    const { id: old } = await store.create(undefined);
    const { id: live } = await store.create(undefined);
    await age(idle, { idle: 61 });
    await age(old, { created: 3601 });
    await age(live, { idle: 30, created: 1000 });
    const { id: fresh } = await store.create(undefined);
    assert.deepEqual((await rows()).map((row) => row.id_hash).sort(), [hashOf(live), hashOf(fresh)].sort());
  });

  it('uses the default limits when given none', async () => {
    const store = createAdminSessionStore(db);
    const { id } = await store.create(undefined);
    await age(id, { idle: 1700, created: 28_000 });
    assert.ok(await store.touch(id));
    await age(id, { idle: 1801 });
    assert.equal(await store.touch(id), undefined);
  });

  it('keeps the signed-in session of a response in its locals', () => {
    const res = { locals: {} } as Response;
    assert.equal(adminSessionOf(res), undefined);
    const session = { idHash: 'hash', createdAt: new Date(0) };
    setAdminSession(res, session);
    assert.equal(adminSessionOf(res), session);
  });
});
