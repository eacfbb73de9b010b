/** The one data-access surface the rest of the tool sees: PostgreSQL (node-postgres) or embedded PGlite. */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
}

export interface Database extends Queryable {
  /** Runs `work` in one transaction on one connection; commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** 'postgres' (DATABASE_URL) or 'pglite' (embedded). */
  readonly kind: 'postgres' | 'pglite';
}
