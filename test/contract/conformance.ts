import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkRequest, describeBreaches, endpointOfPath, type Breach } from './launch-api-checker.js';

/** A request the tool sent to the emulator that the hand-written reading of the Launch API document refuses. */
export interface Nonconformity {
  path: string;
  breaches: Breach[];
}

/** The user agent the tool's proctoring client sends (tests' own hand-made requests carry another). */
const TOOL_USER_AGENT = /^proctor-lti\b/;

/**
 * Watches a server that hosts the Launch API emulator: every launch or subscribe body the tool's client sends is
 * checked against the independent reading of the document once answered; `assertConformed` fails on any breach.
 */
export function createConformanceWatch() {
  const found: Nonconformity[] = [];
  let checked = 0;
  return {
    observe(req: IncomingMessage, res: ServerResponse): void {
      const path = (req.url ?? '').split('?')[0]!;
      const endpoint = req.method === 'POST' && path.includes('/proctoring/v2/') ? endpointOfPath(path) : undefined;
      if (!endpoint || !TOOL_USER_AGENT.test(req.headers['user-agent'] ?? '')) return;
      res.on('finish', () => {
        // express.json inside the emulator left the parsed body on the request.
        const body = (req as IncomingMessage & { body?: unknown }).body;
        checked += 1;
        const breaches = checkRequest(endpoint, body);
        if (breaches.length > 0) found.push({ path, breaches });
      });
    },
    /** Bodies checked so far. */
    checked: () => checked,
    nonconformities: (): readonly Nonconformity[] => found,
    assertConformed(): void {
      if (found.length === 0) return;
      throw new Error(`The tool sent ${found.length} request(s) the Launch API document forbids: ${found.map((n) => `${n.path}: ${describeBreaches(n.breaches)}`).join(' | ')}`);
    },
  };
}
