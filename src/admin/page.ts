import express, { type Request, type Response } from 'express';
import type { AdminContext, AdminPageModule } from './registry.js';

/** A console route handler: may be async; a thrown error goes to the error handler (404, 500 page). */
export type AdminHandler = (req: Request, res: Response) => Promise<void> | void;

/** The routes of one console page, each run after sign-in and CSRF checks. */
export interface AdminRoutes {
  get(path: string, handler: AdminHandler): void;
  post(path: string, handler: AdminHandler): void;
}

/** Where a console page sits: its id, its path under the console, its place in the navigation. */
export interface AdminPageHeader {
  id: string;
  path: string;
  navOrder?: number;
}

/** Declares a page's routes; runs once when the console is built. */
export type AdminPageRoutes = (routes: AdminRoutes, context: AdminContext) => void;

/** A console page module from its header and routes: the router and the async error plumbing are made here. */
export function adminPage(header: AdminPageHeader, declareRoutes: AdminPageRoutes): AdminPageModule {
  return {
    id: header.id,
    path: header.path,
    navOrder: header.navOrder,
    router(context) {
      const router = express.Router();
      const wrap = (handler: AdminHandler) => (req: Request, res: Response, next: (error?: unknown) => void) => {
        Promise.resolve()
          .then(() => handler(req, res))
          .catch(next);
      };
      declareRoutes(
        {
          get: (path, handler) => void router.get(path, wrap(handler)),
          post: (path, handler) => void router.post(path, wrap(handler)),
        },
        context,
      );
      return router;
    },
  };
}
