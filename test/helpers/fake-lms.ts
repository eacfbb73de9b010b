import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

/**
 * A stand-in LMS for dynamic registration on loopback: its openid-configuration and registration endpoint.
 * `configuration` and `registered` change what it answers (given the LMS's base URL).
 */
export async function fakeLms(
  options: {
    issuerHost?: string;
    configuration?: (base: string) => Record<string, unknown>;
    registered?: (base: string) => Record<string, unknown>;
  } = {},
) {
  const app = express();
  const registrations: Array<{ body: Record<string, unknown>; authorization?: string }> = [];
  let base = '';
  app.get('/.well-known/openid-configuration', (_req, res) => {
    const issuer = options.issuerHost ? `http://${options.issuerHost}` : base;
    // Moodle answers JSON labelled text/html.
    res.type('text/html').send(
      JSON.stringify({
        issuer,
        authorization_endpoint: `${base}/auth`,
        token_endpoint: `${base}/token`,
        jwks_uri: `${base}/jwks`,
        registration_endpoint: `${base}/register`,
        'https://purl.imsglobal.org/spec/lti-platform-configuration': { product_family_code: 'moodle', version: '2025100600.02' },
        ...options.configuration?.(base),
      }),
    );
  });
  app.post('/register', express.json(), (req, res) => {
    registrations.push({ body: req.body as Record<string, unknown>, authorization: req.get('authorization') });
    res.json({ client_id: 'dyn-client-1', 'https://purl.imsglobal.org/spec/lti-tool-configuration': { deployment_id: '7' }, ...options.registered?.(base) });
  });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    registrations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
