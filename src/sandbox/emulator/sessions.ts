import { randomBytes } from 'node:crypto';
import type { CandidateLaunchRequest, LaunchpadRequest, LiveLaunchRequest, ReviewerLaunchRequest } from '../../proctoring/contract.js';

/** The launch that opened a session: its kind and the request body of that kind. */
export type SessionLaunch =
  | { kind: 'candidate'; body: CandidateLaunchRequest }
  | { kind: 'reviewer'; body: ReviewerLaunchRequest }
  | { kind: 'live'; body: LiveLaunchRequest }
  | { kind: 'launchpad'; body: LaunchpadRequest };

interface SessionState {
  token: string;
  account: string;
  createdAt: number;
  expiresAt: number;
  ended?: { outcome: 'submitted' | 'left'; at: number };
}

export type Session = SessionState & SessionLaunch;
export type SessionKind = Session['kind'];

type NewSession = Omit<SessionState, 'token' | 'createdAt' | 'expiresAt'> & SessionLaunch & { expireSeconds: number };

/** Sessions behind generated URLs, in memory. Expired ones are kept a while to show "link expired". */
/** How often the store looks through every session for expired ones (a launch pays only the size cap). */
const EXPIRED_SWEEP_MS = 60_000;

export function createSessionStore(options: { max?: number; keepExpiredMs?: number } = {}) {
  const max = options.max ?? 5000;
  const keepExpiredMs = options.keepExpiredMs ?? 24 * 3600_000;
  const sessions = new Map<string, Session>();
  let nextSweep = 0;

  function prune(now: number) {
    if (now >= nextSweep) {
      nextSweep = now + Math.min(EXPIRED_SWEEP_MS, keepExpiredMs);
      for (const [token, session] of sessions) {
        if (session.expiresAt + keepExpiredMs < now) sessions.delete(token);
      }
    }
    // Map keeps insertion order: the oldest go first.
    for (const token of sessions.keys()) {
      if (sessions.size < max) break;
      sessions.delete(token);
    }
  }

  return {
    create(input: NewSession): Session {
      const now = Date.now();
      prune(now);
      const { expireSeconds, ...rest } = input;
      const session: Session = { ...rest, token: randomBytes(18).toString('base64url'), createdAt: now, expiresAt: now + expireSeconds * 1000 };
      sessions.set(session.token, session);
      return session;
    },
    get: (token: string) => sessions.get(token),
    list: () => [...sessions.values()],
    clear: () => sessions.clear(),
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
