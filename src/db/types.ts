/** The one data-access surface the rest of the tool sees: PostgreSQL (node-postgres) or embedded PGlite. */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

export interface Queryable {
  /** Rows of the shape the statement selects (`Row`), as node-postgres and PGlite type them. */
  query<Row extends object = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
}

export interface Database extends Queryable {
  /** Runs `work` in one transaction on one connection; commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Calls `onNotice` with the payload of each notice sent on `channel` (`pg_notify`, by any session once its
   * transaction commits) and `onGap` when notices may have been missed (the listening connection was lost and
   * is back). Listening starts in the background; the returned function stops it.
   */
  listen(channel: string, handlers: NoticeHandlers): () => Promise<void>;
  /** 'postgres' (DATABASE_URL) or 'pglite' (embedded). */
  readonly kind: 'postgres' | 'pglite';
}

export interface NoticeHandlers {
  onNotice(payload: string): void;
  onGap(): void;
  /** The listening connection failed; it is opened again after a pause. */
  onError?(err: Error): void;
}
