import type { Request, Response } from 'express';
import type { Config } from '../config.js';
import type { Database } from '../db/types.js';
import type { Logger } from '../logger.js';
import { USER_AGENT } from '../user-agent.js';
import { createLtiAdapter, type LtiAdapter } from './provider.js';

export interface ConfiguredLtiAdapterDeps {
  config: Pick<Config, 'env' | 'publicUrl' | 'lti' | 'maxPendingLogins'>;
  db: Database;
  logger: Logger;
  /** ENCRYPTION_KEY's keys, newest first: the newest encrypts, the older ones still decrypt. */
  encryptionKeys: readonly string[];
  /** Answers a failure inside ltijs as the tool's error handler does; the CLI serves no requests and needs none. */
  fail?(error: unknown, req: Request, res: Response): void;
  /** Every login and launch through ltijs's own routes (tests compare them with the tool's). */
  launchesThroughLtijs?: boolean;
}

/** The LTI adapter from the tool's configuration: the one way the tool and its CLI build it. */
export function createConfiguredLtiAdapter({ config, db, logger, encryptionKeys, fail, launchesThroughLtijs }: ConfiguredLtiAdapterDeps): Promise<LtiAdapter> {
  const [encryptionKey, ...olderEncryptionKeys] = encryptionKeys;
  if (!encryptionKey) throw new Error('no encryption key');
  return createLtiAdapter({
    db,
    encryptionKey,
    olderEncryptionKeys,
    publicUrl: config.publicUrl,
    sessionMaxAgeSeconds: config.lti.sessionMaxAgeSeconds,
    clockSkewSeconds: config.lti.clockSkewSeconds,
    userAgent: USER_AGENT,
    logger,
    maxPendingLogins: config.maxPendingLogins,
    allowLoopbackPlatformServices: config.env !== 'production',
    fail: fail ?? (() => undefined),
    launchesThroughLtijs,
  });
}
