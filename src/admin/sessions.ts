import { createHash, randomBytes } from 'node:crypto';
import type { Response } from 'express';
import type { Queryable } from '../db/types.js';

/**
 * Console sessions, kept in the database so that signing out ends a session everywhere and several
 * replicas share them. Only a hash of the session id is stored. A session ends after `idleSeconds`
 * without a request, and `absoluteSeconds` after sign-in whatever the activity.
 */
export interface AdminSessionLimits {
  idleSeconds: number;
  absoluteSeconds: number;
}

export const DEFAULT_SESSION_LIMITS: AdminSessionLimits = { idleSeconds: 30 * 60, absoluteSeconds: 8 * 3600 };

export interface AdminSession {
  /** The hash of the session id: safe to bind CSRF tokens to and to log. */
  idHash: string;
  createdAt: Date;
}

export interface AdminSessionStore {
  create(remoteAddress: string | undefined): Promise<{ id: string; session: AdminSession }>;
  /** The live session with this id, its idle clock restarted; undefined when unknown or expired (then deleted). */
  touch(id: string): Promise<AdminSession | undefined>;
  end(id: string): Promise<void>;
}

const hashOf = (id: string) => createHash('sha256').update(id).digest('base64url');

export function createAdminSessionStore(db: Queryable, limits: AdminSessionLimits = DEFAULT_SESSION_LIMITS): AdminSessionStore {
  return {
    async create(remoteAddress) {
      const id = randomBytes(32).toString('base64url');
      const idHash = hashOf(id);
      // Expired sessions are removed as new ones start: there are few, one administrator signs in at a time.
      await db.query(
        `DELETE FROM admin_sessions WHERE last_seen_at < now() - make_interval(secs => $1) OR created_at < now() - make_interval(secs => $2)`,
        [limits.idleSeconds, limits.absoluteSeconds],
      );
      const result = await db.query<{ created_at: Date }>(
        'INSERT INTO admin_sessions (id_hash, remote_address) VALUES ($1, $2) RETURNING created_at',
        [idHash, remoteAddress ?? null],
      );
      return { id, session: { idHash, createdAt: new Date(result.rows[0]?.created_at ?? Date.now()) } };
    },
    async touch(id) {
      const idHash = hashOf(id);
      const result = await db.query<{ created_at: Date }>(
        `UPDATE admin_sessions SET last_seen_at = now()
          WHERE id_hash = $1 AND last_seen_at >= now() - make_interval(secs => $2) AND created_at >= now() - make_interval(secs => $3)
          RETURNING created_at`,
        [idHash, limits.idleSeconds, limits.absoluteSeconds],
      );
      const row = result.rows[0];
      if (!row) {
        await db.query('DELETE FROM admin_sessions WHERE id_hash = $1', [idHash]);
        return undefined;
      }
      return { idHash, createdAt: new Date(row.created_at) };
    },
    async end(id) {
      await db.query('DELETE FROM admin_sessions WHERE id_hash = $1', [hashOf(id)]);
    },
  };
}

/** What the console keeps in `res.locals`: the signed-in session, once its cookie was checked. */
interface AdminLocals {
  adminSession?: AdminSession;
}

/** The console session of this response, when the request carried a live one. */
export function adminSessionOf(res: Response): AdminSession | undefined {
  const locals: AdminLocals = res.locals;
  return locals.adminSession;
}

export function setAdminSession(res: Response, session: AdminSession): void {
  const locals: AdminLocals = res.locals;
  locals.adminSession = session;
}
