import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

/**
 * A throwaway self-signed certificate for 127.0.0.1 and the given host names, made with the openssl
 * command. Undefined (the test skipped with a message) where openssl is missing, unless REQUIRE_BROWSER=1.
 */
export function testCertificate(t: TestContext, hostNames: string[]): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'proctor-lti-tls-'));
  try {
    const names = ['IP:127.0.0.1', ...hostNames.map((name) => `DNS:${name}`)].join(',');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=proctor-lti test',
        '-addext', `subjectAltName=${names}`, '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'pipe' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (process.env.REQUIRE_BROWSER === '1') throw new Error('openssl is required for the https browser tests but missing');
    t.skip('openssl not found: install it (apt-get install -y openssl) to run the https browser tests');
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
