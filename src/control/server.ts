import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { CONTROL_BODY_LIMIT_BYTES, CONTROL_PATH, type CommandRequest, type CommandResult } from './protocol.js';
import { bytesOf } from '../values.js';

export interface ControlServer {
  port: number;
  token: string;
  /** Commands received and waiting for the one before them to finish. */
  waiting(): number;
  close(): Promise<void>;
}

/**
 * The running tool's endpoint for CLI commands on the embedded database: loopback only, every request carries
 * the random token the tool wrote into DATA_DIR's lock file (mode 0600), so only someone who may read the
 * data directory can use it. Commands run one at a time.
 */
export async function startControlServer(run: (request: CommandRequest) => Promise<CommandResult>): Promise<ControlServer> {
  const token = randomBytes(32).toString('base64url');
  const expected = createHash('sha256').update(`Bearer ${token}`).digest();
  let queue: Promise<unknown> = Promise.resolve();
  let waiting = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, { error: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const given = createHash('sha256').update(req.headers.authorization ?? '').digest();
    if (!timingSafeEqual(given, expected)) return reply(res, 401, { error: 'wrong or missing token' });
    if (req.method !== 'POST' || req.url !== CONTROL_PATH) return reply(res, 404, { error: 'not found' });
    const body = await readBody(req);
    if (body === undefined) return reply(res, 413, { error: 'request too large' });
    const request = parseRequest(body);
    if (!request) return reply(res, 400, { error: 'not a command request' });
    waiting += 1;
    const result = queue.then(() => {
      waiting -= 1;
      return run(request);
    });
    queue = result.catch(() => undefined);
    reply(res, 200, await result);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the control server listens on no TCP port');
  return {
    port: address.port,
    token,
    waiting: () => waiting,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = bytesOf(chunk);
    size += bytes.length;
    if (size > CONTROL_BODY_LIMIT_BYTES) return undefined;
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A command request as the CLI sends it; an actor's fields are all text. */
const commandRequestSchema = z.object({
  argv: z.array(z.string()),
  files: z.record(z.string(), z.string()),
  stdin: z.string().optional(),
  actor: z.object({ user: z.string(), host: z.string() }).catchall(z.string()),
});

function parseRequest(text: string): CommandRequest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = commandRequestSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { argv, files, stdin, actor } = parsed.data;
  return { argv, files, stdin, actor: { user: actor.user.slice(0, 100), host: actor.host.slice(0, 200) } };
}
