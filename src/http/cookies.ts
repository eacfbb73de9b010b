import type { Request } from 'express';

/** A signed cookie's value when its signature holds (cookie-parser reads `false` for a forged one), else undefined. */
export function signedCookie(req: Request, name: string): string | undefined {
  const jar: Readonly<Record<string, unknown>> | undefined = req.signedCookies;
  const value = jar?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** An unsigned cookie's value, else undefined. */
export function plainCookie(req: Request, name: string): string | undefined {
  const jar: Readonly<Record<string, unknown>> | undefined = req.cookies;
  const value = jar?.[name];
  return typeof value === 'string' ? value : undefined;
}
