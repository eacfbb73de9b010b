import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { DemoUser, DemoUserKey } from './directory.js';
import type { DemoFlavor, LaunchKind, Presentation } from './flavors.js';
import type { ProctoringMessage } from './proctoring.js';
import { errorCode, propertyOf } from '../../values.js';

/** What the login initiation promised: who launches what, and how. */
export interface PendingLaunch {
  user: DemoUserKey;
  userId: string;
  flavor: DemoFlavor;
  kind: LaunchKind;
  linkId?: string;
  presentation: Presentation;
  /** launch_presentation.locale (default en). */
  locale?: string;
  /** A class member launching instead of a named demo user (`user` is then the key of their role). */
  member?: DemoUser;
  /** The LMS offers its client-side storage (lti_storage_target and its `post_message_forwarding` frame), as Canvas does. */
  platformStorage?: boolean;
  /** LTI Proctoring Services: a start or end of the link's assessment (the Learn Ultra-like flavour). */
  proctoring?: ProctoringMessage;
}

export type HintRefusal = 'missing' | 'malformed' | 'unknown-or-used' | 'expired';

export interface MessageHints {
  /** Stores the launch and answers the opaque `lti_message_hint` naming it. */
  issue(launch: PendingLaunch): Promise<string>;
  /** Returns the launch once; a second call with the same hint is refused. */
  consume(hint: string | undefined): Promise<{ ok: true; launch: PendingLaunch } | { ok: false; reason: HintRefusal }>;
}

const MAX_PENDING = 10_000;

/**
 * Single-use message hints, shaped like each LMS's: Moodle sends a JSON string naming a launch id kept
 * in its session; Canvas an HS256 JWT whose `verifier` names a cached launch. Either way the hint only
 * points at a server-side record, deleted when used.
 */
export function createMessageHints(options: { issuer: string; now: () => number; ttlSeconds?: number }): MessageHints {
  const ttlMs = (options.ttlSeconds ?? 300) * 1000;
  const secret = randomBytes(32);
  const pending = new Map<string, { launch: PendingLaunch; expiresAt: number }>();
  const canvasDomain = new URL(options.issuer).host;

  // Insertion order is age order, and every entry lives the same TTL: the expired ones are at the front, so
  // pruning stops at the first live one instead of walking every pending launch on each login (a class of
  // 1,000 starting at once made that quadratic). Should the clock step back, an expired entry left behind a
  // live one is still refused when consumed.
  function prune(): void {
    const now = options.now();
    for (const [id, entry] of pending) {
      if (entry.expiresAt > now) break;
      pending.delete(id);
    }
    // Drop the oldest when someone floods the launch form.
    while (pending.size >= MAX_PENDING) {
      const oldest = pending.keys().next();
      if (oldest.done) break;
      pending.delete(oldest.value);
    }
  }

  async function launchIdOf(hint: string): Promise<{ id: string } | { reason: HintRefusal }> {
    if (hint.startsWith('{')) {
      try {
        const parsed: unknown = JSON.parse(hint);
        const id = propertyOf(parsed, 'launchid');
        return typeof id === 'string' ? { id } : { reason: 'malformed' };
      } catch {
        return { reason: 'malformed' };
      }
    }
    try {
      const { payload } = await jwtVerify(hint, secret, {
        algorithms: ['HS256'],
        currentDate: new Date(options.now()),
        requiredClaims: ['exp', 'verifier'],
      });
      return typeof payload.verifier === 'string' ? { id: payload.verifier } : { reason: 'malformed' };
    } catch (error) {
      return { reason: errorCode(error) === 'ERR_JWT_EXPIRED' ? 'expired' : 'malformed' };
    }
  }

  return {
    async issue(launch) {
      prune();
      const now = options.now();
      const id = `ltilaunch_${randomBytes(18).toString('base64url')}`;
      pending.set(id, { launch, expiresAt: now + ttlMs });
      if (launch.flavor === 'moodle') {
        return JSON.stringify(launch.kind === 'resource' && launch.linkId ? { cmid: launch.linkId, launchid: id } : { launchid: id });
      }
      return new SignJWT({
        verifier: id,
        canvas_domain: canvasDomain,
        context_type: 'Course',
        canvas_locale: 'en',
        include_storage_target: launch.platformStorage === true,
      })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setExpirationTime(Math.floor((now + ttlMs) / 1000))
        .sign(secret);
    },

    async consume(hint) {
      if (!hint) return { ok: false, reason: 'missing' };
      if (hint.length > 4096) return { ok: false, reason: 'malformed' };
      const found = await launchIdOf(hint);
      if ('reason' in found) return { ok: false, reason: found.reason };
      const entry = pending.get(found.id);
      if (!entry) return { ok: false, reason: 'unknown-or-used' };
      pending.delete(found.id);
      if (entry.expiresAt <= options.now()) return { ok: false, reason: 'expired' };
      return { ok: true, launch: entry.launch };
    },
  };
}
