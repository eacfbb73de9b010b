import { createHash } from 'node:crypto';
import { requestSlot } from '../http/request-slots.js';
import { CLAIM } from './claims.js';
import { propertyOf } from '../values.js';

/**
 * The session ltijs 5.9.9's launch route opens for a verified id_token, as plain values: the two documents it
 * stores (`idtoken`, the platform and user; `contexttoken`, the context and link) and the payload of the session
 * token (ltik) it signs, which names both. The tool answers resource-link launches itself (provider.ts) and
 * opens the same session, so that ltijs's session check accepts it on every later request.
 * test/e2e/lti/direct-launch.test.ts compares both paths' documents and tokens.
 */
export interface LtijsSession {
  idtoken: { query: Record<string, unknown>; doc: Record<string, unknown> };
  contexttoken: { query: Record<string, unknown>; doc: Record<string, unknown> };
  ltik: { platformUrl: unknown; clientId: unknown; deploymentId: unknown; platformCode: string; contextId: string; user: unknown; s: string };
}

/** The path ltijs's app sees for the launch route (its app is mounted at /lti). */
export const LTIJS_LAUNCH_PATH = '/launch';

const AGS_ENDPOINT = 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint';

function idOf(claim: unknown): unknown {
  return claim ? propertyOf(claim, 'id') : 'NF';
}

/** `valid`: what the token validation hands ltijs (the verified payload without personal claims, plus clientId and platformId). */
export function ltijsSessionOf(valid: Record<string, unknown>, state: string): LtijsSession {
  const clientId = valid.clientId;
  const deploymentId = valid[CLAIM.deploymentId];
  // Field for field, in ltijs's order: the hash is over this object's JSON.
  const additionalContextProperties = {
    path: LTIJS_LAUNCH_PATH,
    roles: valid[CLAIM.roles],
    targetLinkUri: valid[CLAIM.targetLinkUri],
    custom: valid[CLAIM.custom],
    launchPresentation: valid[CLAIM.launchPresentation],
    endpoint: valid[AGS_ENDPOINT],
    namesRoles: valid[CLAIM.nrps],
  };
  const hash = createHash('sha256').update(JSON.stringify(additionalContextProperties)).digest('hex');
  const text = (value: unknown) => String(value);
  const contextId = encodeURIComponent(
    text(valid.iss) + text(clientId) + text(deploymentId) + text(idOf(valid[CLAIM.context])) + '_' + text(idOf(valid[CLAIM.resourceLink])) + '_' + hash,
  );
  const platformCode = encodeURIComponent('lti' + Buffer.from(text(valid.iss) + text(clientId) + text(deploymentId)).toString('base64'));
  const platformToken = {
    iss: valid.iss,
    user: valid.sub,
    userInfo: { given_name: valid.given_name, family_name: valid.family_name, name: valid.name, email: valid.email },
    platformInfo: valid[CLAIM.toolPlatform],
    clientId,
    platformId: valid.platformId,
    deploymentId,
  };
  const contextToken = {
    contextId,
    user: valid.sub,
    context: valid[CLAIM.context],
    resource: valid[CLAIM.resourceLink],
    messageType: valid[CLAIM.messageType],
    version: valid[CLAIM.version],
    deepLinkingSettings: valid[CLAIM.deepLinkingSettings],
    lis: valid[CLAIM.lis],
    ...additionalContextProperties,
  };
  return {
    idtoken: { query: { iss: valid.iss, clientId, deploymentId, user: valid.sub }, doc: platformToken },
    contexttoken: { query: { contextId, user: valid.sub }, doc: contextToken },
    ltik: { platformUrl: valid.iss, clientId, deploymentId, platformCode, contextId, user: valid.sub, s: state },
  };
}

/** The session each response opened on the tool's launch route, by response: its launch is read from here. */
const openedSessions = requestSlot<object, LtijsSession['ltik']>('opened session');
const unsignedTokens = requestSlot<object, { ltik: LtijsSession['ltik']; sign: (payload: LtijsSession['ltik']) => string }>('session token to sign');

/**
 * Gives a response the session it opened: `locals.ltik` is signed the first time something reads it (a page, a
 * hand-off, the request's CSRF check), so a launch answered with a redirect, which hands no session token out,
 * signs none; the launch itself is read from the payload (`openedSessionOf`).
 */
export function holdOpenedSession(res: { locals: Record<string, unknown> }, ltik: LtijsSession['ltik'], sign: (payload: LtijsSession['ltik']) => string): void {
  openedSessions.set(res, ltik);
  unsignedTokens.set(res.locals, { ltik, sign });
  // Shared accessor functions, the token's data in a slot: a function made per response and kept on its locals
  // would keep the whole response through young-generation collections (see methodOverride).
  Object.defineProperty(res.locals, 'ltik', { enumerable: true, configurable: true, get: signHeldToken, set: settleToken });
}

function settleToken(this: object, value: unknown): unknown {
  Object.defineProperty(this, 'ltik', { value, writable: true, enumerable: true, configurable: true });
  return value;
}

function signHeldToken(this: object): unknown {
  const held = unsignedTokens.get(this);
  return settleToken.call(this, held ? held.sign(held.ltik) : undefined);
}

/** The payload of the session this response opened on the tool's launch route, if it did. */
export function openedSessionOf(res: object): LtijsSession['ltik'] | undefined {
  return openedSessions.get(res);
}
