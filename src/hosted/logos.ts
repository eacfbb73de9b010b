import { createHash } from 'node:crypto';
import { readCache } from '../db/read-cache.js';
import type { Queryable } from '../db/types.js';
import { inspectLogo, type LogoContentType } from './logo-image.js';
import { sanitizeSvg } from './svg.js';
import { platformKey } from '../lti/identifiers.js';

export interface StoredLogo {
  contentType: LogoContentType;
  bytes: Buffer;
  /** Strong validator: a hash of the bytes. */
  etag: string;
  updatedAt: Date;
}

export interface LogoStore {
  /** Validates (type by content, size), sanitises SVG, and replaces the platform's logo. Throws LogoError. */
  save(issuer: string, clientId: string, bytes: Uint8Array): Promise<StoredLogo>;
  /** The logo a public platform key names. */
  findByKey(key: string): Promise<StoredLogo | undefined>;
  remove(issuer: string, clientId: string): Promise<boolean>;
}

interface Row {
  content_type: LogoContentType;
  data_base64: string;
  etag: string;
  updated_at: Date;
}

// Kept as base64 text: the same on node-postgres and PGlite, and a logo is small.
export function createLogoStore(db: Queryable): LogoStore {
  // Every launch asks whether the platform has a logo: reused for a few seconds (db/read-cache.ts).
  const cached = readCache<StoredLogo | undefined>(db, 'institution-logos');
  return {
    async save(issuer, clientId, input) {
      const contentType = inspectLogo(input);
      const bytes = Buffer.from(contentType === 'image/svg+xml' ? await sanitizeSvg(input) : input);
      const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
      const result = await db.query<{ updated_at: Date }>(
        `INSERT INTO institution_logos (platform_key, issuer, client_id, content_type, data_base64, etag)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (platform_key) DO UPDATE SET content_type = EXCLUDED.content_type, data_base64 = EXCLUDED.data_base64,
           etag = EXCLUDED.etag, updated_at = now()
         RETURNING updated_at`,
        [platformKey(issuer, clientId), issuer, clientId, contentType, bytes.toString('base64'), etag],
      );
      cached.clear();
      return { contentType, bytes, etag, updatedAt: new Date(result.rows[0]?.updated_at ?? Date.now()) };
    },
    async findByKey(key) {
      const found = await cached.get(key, async () => {
        const result = await db.query<Row>('SELECT content_type, data_base64, etag, updated_at FROM institution_logos WHERE platform_key = $1', [key]);
        const row = result.rows[0];
        if (!row) return undefined;
        return { contentType: row.content_type, bytes: Buffer.from(row.data_base64, 'base64'), etag: row.etag, updatedAt: new Date(row.updated_at) };
      });
      return found && { ...found, bytes: Buffer.from(found.bytes), updatedAt: new Date(found.updatedAt) };
    },
    async remove(issuer, clientId) {
      const result = await db.query('DELETE FROM institution_logos WHERE platform_key = $1', [platformKey(issuer, clientId)]);
      cached.clear();
      return result.rowCount > 0;
    },
  };
}
