import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, serverStartProblems } from '../../src/config.js';

const production = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://proctor.example.edu',
  ENCRYPTION_KEY: 'x'.repeat(40),
  DATABASE_URL: 'postgres://u:p@db:5432/proctor',
  PROCTORING_BASE_URL: 'https://api.proctoring.example',
  PROCTORING_REGION: 'eu',
  PROCTORING_CONSUMER_KEY: 'ck',
  PROCTORING_SECRET: 'secret',
};

function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail('configuration was accepted');
}

describe('configuration', () => {
  it('starts in sandbox mode with nothing configured', () => {
    const config = loadConfig({});
    assert.equal(config.sandbox, true);
    assert.equal(config.port, 3000);
    assert.equal(config.publicUrl.origin, 'http://localhost:3000');
    assert.equal(config.database.url, undefined);
    assert.equal(config.database.dataDir, './data');
  });

  it('accepts a complete production configuration', () => {
    const config = loadConfig(production);
    assert.equal(config.sandbox, false);
    assert.equal(config.proctoring.region, 'EU');
    assert.deepEqual(config.proctoring.credentials, { consumerKey: 'ck', secret: 'secret' });
  });

  const bad: Array<[string, Record<string, string>, RegExp]> = [
    ['PORT not a number', { PORT: 'eighty' }, /PORT must be a whole number/],
    ['PUBLIC_URL not a URL', { PUBLIC_URL: 'proctor.example.edu' }, /PUBLIC_URL must be an absolute http\(s\) URL/],
    ['DATABASE_URL not postgres', { DATABASE_URL: 'mysql://x/y' }, /DATABASE_URL must look like postgres:/],
    ['short ENCRYPTION_KEY', { ENCRYPTION_KEY: 'short' }, /ENCRYPTION_KEY must be at least 32/],
    ['unknown region', { PROCTORING_REGION: 'MARS' }, /PROCTORING_REGION must be one of/],
    ['LOG_LEVEL unknown', { LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    ['secret without key', { PROCTORING_SECRET: 's', PROCTORING_BASE_URL: 'https://a.example' }, /PROCTORING_CONSUMER_KEY is required/],
    ['credentials without base URL', { PROCTORING_API_KEY: 'k' }, /PROCTORING_BASE_URL is required/],
    ['bad CORS origin', { CORS_ALLOWED_ORIGINS: 'https://a.example/path' }, /CORS_ALLOWED_ORIGINS/],
  ];
  for (const [name, env, message] of bad) {
    it(`refuses ${name}, naming the variable`, () => {
      assert.match(problemsOf(env), message);
    });
  }

  for (const variable of ['PUBLIC_URL', 'ENCRYPTION_KEY', 'DATABASE_URL', 'PROCTORING_BASE_URL', 'PROCTORING_REGION']) {
    it(`production without ${variable} stops`, () => {
      const env: Record<string, string> = { ...production };
      delete env[variable];
      assert.match(problemsOf(env), new RegExp(`${variable} is required in production`));
    });
  }

  it('production without credentials stops, and never runs the sandbox', () => {
    const env: Record<string, string> = { ...production };
    delete env.PROCTORING_CONSUMER_KEY;
    delete env.PROCTORING_SECRET;
    assert.match(problemsOf(env), /required in production/);
  });

  describe('sandbox mode on a real database only when asked for', () => {
    const realDatabase = { DATABASE_URL: 'postgres://u:p@db.example.edu:5432/proctor' };
    it('DATABASE_URL without proctoring credentials: no sandbox, and the server refuses to start saying why', () => {
      const config = loadConfig(realDatabase);
      assert.equal(config.sandbox, false);
      assert.match(serverStartProblems(config).join('\n'), /DATABASE_URL is set but no proctoring credentials.*SANDBOX=1/);
    });
    it('SANDBOX=1 runs the sandbox on that database', () => {
      const config = loadConfig({ ...realDatabase, SANDBOX: '1' });
      assert.equal(config.sandbox, true);
      assert.deepEqual(serverStartProblems(config), []);
    });
    it('without DATABASE_URL the embedded database still starts in sandbox mode', () => {
      assert.deepEqual(serverStartProblems(loadConfig({})), []);
    });
    it('SANDBOX=0 needs a proctoring service; SANDBOX=1 is refused in production and with credentials', () => {
      assert.match(serverStartProblems(loadConfig({ SANDBOX: '0' })).join(''), /SANDBOX=0 needs a proctoring service/);
      assert.match(problemsOf({ ...production, SANDBOX: '1' }), /SANDBOX=1 cannot be used in production/);
      assert.match(problemsOf({ SANDBOX: '1', PROCTORING_API_KEY: 'k', PROCTORING_BASE_URL: 'https://a.example' }), /SANDBOX=1 uses the built-in emulator/);
      assert.match(problemsOf({ SANDBOX: 'maybe' }), /SANDBOX must be 1/);
    });
    it('proctoring credentials with DATABASE_URL start normally', () => {
      const config = loadConfig({ ...realDatabase, PROCTORING_API_KEY: 'k', PROCTORING_BASE_URL: 'https://a.example' });
      assert.equal(config.sandbox, false);
      assert.deepEqual(serverStartProblems(config), []);
    });
  });

  it('production refuses a plain-http PUBLIC_URL', () => {
    assert.match(problemsOf({ ...production, PUBLIC_URL: 'http://proctor.example.edu' }), /PUBLIC_URL must use https/);
  });
});
