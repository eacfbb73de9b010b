import type { Migration } from './index.js';

/**
 * The documents ltijs stores through our plugin (src/lti/store/ltijs-store.ts): one row per document, the
 * document as jsonb. The unique indexes are those of ltijs's own Mongo schemas
 * (node_modules/ltijs/dist/Utils/Database.js).
 */
const statements = [
  `CREATE TABLE ltijs_documents (
    id bigserial PRIMARY KEY,
    collection text NOT NULL,
    doc jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz
  )`,
  `CREATE INDEX ltijs_documents_collection_idx ON ltijs_documents (collection, id)`,
  `CREATE INDEX ltijs_documents_doc_idx ON ltijs_documents USING gin (doc jsonb_path_ops)`,
  `CREATE INDEX ltijs_documents_expires_idx ON ltijs_documents (expires_at) WHERE expires_at IS NOT NULL`,
  `CREATE UNIQUE INDEX ltijs_platform_url_client_key ON ltijs_documents ((doc->>'platformUrl'), (doc->>'clientId'))
    WHERE collection = 'platform'`,
  `CREATE UNIQUE INDEX ltijs_platform_kid_key ON ltijs_documents ((doc->>'kid')) WHERE collection = 'platform'`,
  `CREATE UNIQUE INDEX ltijs_platform_status_id_key ON ltijs_documents ((doc->>'id')) WHERE collection = 'platformStatus'`,
  `CREATE UNIQUE INDEX ltijs_key_kid_key ON ltijs_documents (collection, (doc->>'kid'))
    WHERE collection IN ('publickey', 'privatekey')`,
  `CREATE UNIQUE INDEX ltijs_accesstoken_key ON ltijs_documents ((doc->>'platformUrl'), (doc->>'clientId'), (doc->>'scopes'))
    WHERE collection = 'accesstoken'`,
  `CREATE UNIQUE INDEX ltijs_state_key ON ltijs_documents ((doc->>'state')) WHERE collection = 'state'`,
];

const migration: Migration = {
  name: '0001_ltijs_store',
  async up(db) {
    for (const sql of statements) await db.query(sql);
  },
};

export default migration;
