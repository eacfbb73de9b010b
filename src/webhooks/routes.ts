import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { requestLogger } from '../http/request-id.js';
import type { Logger } from '../logger.js';
import { countWebhookDelivery } from '../metrics.js';
import type { Receiver } from './receiver.js';
import { RECEIVER_PATH } from './subscriptions.js';
import { propertyOf } from '../values.js';

/** Deliveries are a few hundred bytes; anything past this is refused before it is read whole. */
export const MAX_DELIVERY_BYTES = 64 * 1024;

/**
 * `POST /webhooks/proctoring/<subscription id>`: the raw body is kept (the signature covers `data` byte for
 * byte) whatever its content type. 200 once the delivery is stored (or was already), 401 for anything
 * not proven to come from the service, 400 for a body that is not a JSON object, 413 past the limit.
 */
export function createWebhookRoutes(deps: { receiver: Receiver; noteFailure(subscriptionId: string, reason: string): Promise<void>; logger: Logger }): Router {
  const router = express.Router();
  router.post(
    `${RECEIVER_PATH}/:subscriptionId`,
    express.raw({ type: () => true, limit: MAX_DELIVERY_BYTES, inflate: true }),
    async (req: Request, res: Response) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const outcome = await deps.receiver.receive(String(req.params.subscriptionId), body, requestLogger(deps.logger, req));
      res.set('Cache-Control', 'no-store');
      countWebhookDelivery(outcome.status === 200 ? (outcome.body.status === 'stored' ? 'accepted' : 'duplicate') : outcome.status === 401 ? 'unauthorized' : 'invalid');
      if (outcome.status === 200) res.status(200).json(outcome.body);
      else res.status(outcome.status).json({ error: outcome.status === 401 ? 'unauthorized' : 'bad_request' });
    },
    async (error: unknown, req: Request, res: Response, next: NextFunction) => {
      const type = propertyOf(error, 'type');
      if (type !== 'entity.too.large' && type !== 'request.aborted' && type !== 'encoding.unsupported') {
        next(error);
        return;
      }
      const status = type === 'entity.too.large' ? 413 : 400;
      countWebhookDelivery(status === 413 ? 'too_large' : 'invalid');
      requestLogger(deps.logger, req).warn({ status, type }, 'webhook delivery refused before reading it');
      if (type === 'entity.too.large') {
        // Counted only on a real subscription; the reason names the limit, never the content.
        await deps.noteFailure(String(req.params.subscriptionId), `body larger than ${MAX_DELIVERY_BYTES} bytes`).catch(() => undefined);
      }
      if (!res.headersSent) res.status(status).json({ error: status === 413 ? 'too_large' : 'bad_request' });
    },
  );
  return router;
}
