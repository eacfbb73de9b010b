import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { createContextStore } from '../../src/hosted/contexts.js';
import { createHostedLinks } from '../../src/hosted/links.js';
import type { TestApp } from './app.js';
import { installationSecret } from './app.js';

/** A 1×1 PNG. */
export const PNG_1PX = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A roster token as links.ts signs it, with any payload and expiry: for expired and forged links. */
export function signHostedToken(secret: string, payload: Record<string, unknown>, expiresAt: number): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(expiresAt).sign(new TextEncoder().encode(secret));
}

/** The sandbox account's api_key (consumer key + MD5 of the secret), for calling the emulator directly. */
export const SANDBOX_API_KEY = `sandbox-consumer${createHash('md5').update('sandbox-secret').digest('hex')}`;

/** A throwaway HTTP server on 127.0.0.1: a stand-in endpoint (memberships that fail or hang), or a second console. */
export async function startStub(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A course of the demo LMS's platform whose Names and Roles service is `namesRolesUrl` (a stub), as a launch
 * in it would record it; its section id and a roster path with a valid link token.
 */
export async function courseWithNamesRoles(
  app: TestApp,
  contextId: string,
  namesRolesUrl: string | undefined,
  /** Another registered platform than the demo LMS. */
  platform?: { issuer: string; clientId: string },
): Promise<{ sectionId: string; rosterPath: string }> {
  const demo = app.tool.sandbox!.demoLms;
  const { issuer, clientId } = platform ?? demo.registration;
  const contexts = createContextStore(app.db, { pseudonymSecret: await installationSecret(app.db, 'pseudonyms') });
  const sectionId = await contexts.remember({ issuer, clientId, deploymentId: '1', context: { id: contextId }, namesRolesUrl });
  if (!sectionId) throw new Error('no section id');
  const links = createHostedLinks({ baseUrl: app.baseUrl, secret: await installationSecret(app.db, 'hosted-links') });
  const url = new URL(await links.rosterUrl(sectionId, 600));
  return { sectionId, rosterPath: url.pathname + url.search };
}
