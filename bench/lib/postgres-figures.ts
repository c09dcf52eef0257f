// What a crawl left in and cost Postgres: rows per table (per page), the client-side fetch
// timings our fetch records carry, the statements that took the most time (pg_stat_statements),
// and what busy backends were doing, sampled from pg_stat_activity during the crawl.
import pg from 'pg';
import { latencySummary, round, type LatencySummary } from './stats.js';

export interface StatementFigures {
  query: string;
  calls: number;
  totalSeconds: number;
  meanMs: number;
  /** Per page fetched. */
  callsPerPage: number;
}

export interface PostgresFigures {
  rowsByTable: Record<string, number>;
  rows: number;
  rowsPerPage: number;
  /** timings.totalMs of our fetch records: request start to body end, as our HTTP client saw it. */
  clientLatency: LatencySummary;
  /** timings.firstByteMs: request start to response head. */
  clientFirstByte: LatencySummary;
  statements?: {
    totalSeconds: number;
    calls: number;
    callsPerPage: number;
    /** By total time (lock waits included). */
    top: StatementFigures[];
    /** By calls: where the round trips per page go. */
    mostCalled?: StatementFigures[];
  };
  activity?: ActivityFigures;
}

export interface ActivityFigures {
  samples: number;
  /** Mean number of backends of the crawl's database running a statement at a sample. */
  meanActive: number;
  /** Mean number idle inside a transaction (holding locks while the client does something else). */
  meanIdleInTransaction: number;
  /** Share of active backend samples by wait event ('cpu' when not waiting). */
  waits: Record<string, number>;
  /** Share of active backend samples by statement (first 90 characters). */
  statements: Record<string, number>;
}

function oneLine(sql: string, max: number): string {
  const line = sql.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export async function resetStatementStats(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_stat_statements_reset()');
  } finally {
    await client.end();
  }
}

export async function postgresFigures(databaseUrl: string, pages: number, withStatements: boolean): Promise<PostgresFigures> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
    );
    const rowsByTable: Record<string, number> = {};
    let rows = 0;
    for (const { name } of tables.rows) {
      const count = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}"`);
      const n = count.rows[0]?.n ?? 0;
      if (n > 0) rowsByTable[name] = n;
      rows += n;
    }
    const timings = await client.query<{ total: number | null; first: number | null }>(
      `SELECT (timings->>'totalMs')::float8 AS total, (timings->>'firstByteMs')::float8 AS first FROM fetches WHERE timings ? 'totalMs'`,
    );
    const figures: PostgresFigures = {
      rowsByTable,
      rows,
      rowsPerPage: round(rows / Math.max(1, pages), 2),
      clientLatency: latencySummary(timings.rows.flatMap((row) => (row.total === null ? [] : [row.total]))),
      clientFirstByte: latencySummary(timings.rows.flatMap((row) => (row.first === null ? [] : [row.first]))),
    };
    const statementFigures = (row: { query: string; calls: string; total: number; mean: number }): StatementFigures => ({
      query: oneLine(row.query, 110),
      calls: Number(row.calls),
      totalSeconds: round(row.total / 1000, 2),
      meanMs: round(row.mean, 2),
      callsPerPage: round(Number(row.calls) / Math.max(1, pages), 2),
    });
    if (withStatements) {
      const statements = await client.query<{ query: string; calls: string; total: number; mean: number }>(
        `SELECT query, calls, total_exec_time AS total, mean_exec_time AS mean FROM pg_stat_statements
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND query NOT ILIKE '%pg_stat_%' AND query NOT ILIKE 'SELECT count(*)::int AS n FROM%'
         ORDER BY total_exec_time DESC`,
      );
      let totalMs = 0;
      let calls = 0;
      for (const row of statements.rows) {
        totalMs += row.total;
        calls += Number(row.calls);
      }
      figures.statements = {
        totalSeconds: round(totalMs / 1000, 2),
        calls,
        callsPerPage: round(calls / Math.max(1, pages), 1),
        top: statements.rows.slice(0, 12).map(statementFigures),
        mostCalled: [...statements.rows].sort((a, b) => Number(b.calls) - Number(a.calls)).slice(0, 30).map(statementFigures),
      };
    }
    return figures;
  } finally {
    await client.end();
  }
}

/** Samples pg_stat_activity for one database every `intervalMs` until stop(). */
export class ActivitySampler {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private samples = 0;
  private active = 0;
  private idleInTransaction = 0;
  private readonly waits = new Map<string, number>();
  private readonly statements = new Map<string, number>();

  constructor(
    private readonly adminUrl: string,
    private readonly database: string,
    private readonly intervalMs = 100,
  ) {}

  async start(): Promise<void> {
    this.client = new pg.Client({ connectionString: this.adminUrl });
    await this.client.connect();
    this.timer = setInterval(() => void this.sample(), this.intervalMs);
  }

  private async sample(): Promise<void> {
    if (this.busy || !this.client) return;
    this.busy = true;
    try {
      const result = await this.client.query<{ state: string; wait: string | null; query: string }>(
        `SELECT state, CASE WHEN wait_event IS NULL THEN NULL ELSE wait_event_type || ':' || wait_event END AS wait, query
         FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        [this.database],
      );
      this.samples += 1;
      for (const row of result.rows) {
        if (row.state === 'idle in transaction') this.idleInTransaction += 1;
        if (row.state !== 'active') continue;
        this.active += 1;
        const wait = row.wait ?? 'cpu';
        this.waits.set(wait, (this.waits.get(wait) ?? 0) + 1);
        const statement = oneLine(row.query, 90);
        this.statements.set(statement, (this.statements.get(statement) ?? 0) + 1);
      }
    } catch {
      // A missed sample is not worth failing the benchmark for.
    } finally {
      this.busy = false;
    }
  }

  async stop(): Promise<ActivityFigures> {
    if (this.timer) clearInterval(this.timer);
    while (this.busy) await new Promise((resolve) => setTimeout(resolve, 10));
    await this.client?.end();
    const share = (map: Map<string, number>, top: number): Record<string, number> =>
      Object.fromEntries(
        [...map]
          .sort((a, b) => b[1] - a[1])
          .slice(0, top)
          .map(([key, n]) => [key, round((n / Math.max(1, this.active)) * 100)]),
      );
    return {
      samples: this.samples,
      meanActive: round(this.active / Math.max(1, this.samples), 2),
      meanIdleInTransaction: round(this.idleInTransaction / Math.max(1, this.samples), 2),
      waits: share(this.waits, 8),
      statements: share(this.statements, 8),
    };
  }
}
