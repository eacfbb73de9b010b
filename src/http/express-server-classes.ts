import { IncomingMessage, ServerResponse } from 'node:http';

/** What `http.createServer` takes to build each request and response: the classes to construct. */
export interface ServerClasses {
  IncomingMessage?: typeof IncomingMessage;
  ServerResponse?: typeof ServerResponse;
}

/** Node's request and response constructors are plain functions; typed as such, they can run on another object. */
const initRequest = IncomingMessage as unknown as (this: IncomingMessage, ...args: unknown[]) => void;
const initResponse = ServerResponse as unknown as (this: ServerResponse, ...args: unknown[]) => void;

/**
 * Request and response classes for `http.createServer` whose objects are born with an express app's own
 * prototypes (`app.request`, `app.response`), on the Node.js versions where that matters.
 *
 * Express gives every request and response its app's prototype with `Object.setPrototypeOf` as it starts
 * handling them; on Node 20 changing a live object's prototype makes V8 promote much of what the request
 * allocated (docs/performance.md, "The rules"), so born with the app's prototype, the object already has it and
 * express's call changes nothing. Node 24 pays nothing for the change, so there Node's own classes are kept.
 * Requests that a mounted sub-app handles get its prototype as before.
 */
export function expressServerClasses(app: { request: object; response: object }, nodeMajor = Number(process.versions.node.split('.')[0])): ServerClasses {
  if (nodeMajor >= 24) return {};
  function AppRequest(this: IncomingMessage, socket: unknown): void {
    initRequest.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: unknown, options: unknown): void {
    initResponse.call(this, req, options);
  }
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  };
}
