import type { RequestHandler } from 'express';
import helmet from 'helmet';
import type { Config } from '../config.js';

/** The tool's own pages: LMSs frame them, so any ancestor is allowed; everything else stays locked to our origin. */
export function securityHeaders(config: Pick<Config, 'publicUrl'>): RequestHandler {
  const https = config.publicUrl.protocol === 'https:';
  return helmet({
    frameguard: false,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        formAction: ["'self'", 'https:', ...(https ? [] : ['http:'])],
        frameAncestors: ['*'],
        upgradeInsecureRequests: https ? [] : null,
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
  });
}
