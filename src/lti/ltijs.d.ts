// The part of ltijs 5.9.9 the adapter uses. (@types/ltijs describes ltijs 4 and rejects 5.x options.)
declare module 'ltijs' {
  import type { RequestHandler, Request, Response, NextFunction, Application } from 'express';

  export interface LtijsPlatformAuthConfig {
    method: 'JWK_SET' | 'JWK_KEY' | 'RSA_KEY';
    key: string;
  }

  export interface LtijsPlatformRegistration {
    url: string;
    name: string;
    clientId: string;
    authenticationEndpoint: string;
    accesstokenEndpoint: string;
    authorizationServer?: string;
    authConfig: LtijsPlatformAuthConfig;
  }

  export interface LtijsPlatform {
    platformUrl(): Promise<string>;
    platformClientId(): Promise<string>;
    platformName(): Promise<string>;
    platformId(): Promise<string>;
    platformKid(): Promise<string>;
    platformActive(active?: boolean): Promise<boolean>;
    platformAuthConfig(): Promise<LtijsPlatformAuthConfig>;
    platformAuthEndpoint(): Promise<string>;
    platformAccessTokenEndpoint(): Promise<string>;
    platformAuthorizationServer(): Promise<string | undefined>;
    platformJSON(): Promise<Record<string, unknown>>;
    /** A cached access token for these scopes (space-separated), or a new one from the token endpoint. */
    platformAccessToken(scopes: string): Promise<LtijsAccessToken>;
    /** PEM (PKCS#1) of the tool's private key for this platform. */
    platformPrivateKey(): Promise<string>;
    delete(): Promise<boolean>;
  }

  export interface LtijsAccessToken {
    access_token: string;
    token_type: string;
    expires_in: number;
    scope?: string;
  }

  export type LtijsConnectCallback = (token: unknown, req: Request, res: Response, next: NextFunction) => unknown;

  export interface LtijsSetupOptions {
    appRoute?: string;
    loginRoute?: string;
    keysetRoute?: string;
    dynRegRoute?: string;
    cors?: boolean;
    devMode?: boolean;
    /** Hands the id_token POST to onConnect itself (no redirect carrying the ltik), and sets no session cookie. */
    ltiaas?: boolean;
    tokenMaxAge?: number | false;
    cookies?: { secure?: boolean; sameSite?: 'None' | 'Lax' | 'Strict'; domain?: string };
    serverAddon?: (app: Application) => void;
  }

  export interface LtijsNamesAndRoles {
    getMembers(token: unknown, options?: { role?: string; limit?: number; pages?: number | false; url?: string; resourceLinkId?: boolean }): Promise<{ members: unknown[]; next?: string; differences?: string }>;
  }

  export interface LtijsDeepLinking {
    createDeepLinkingForm(token: unknown, contentItems: unknown[], options?: { message?: string; errMessage?: string; log?: string; errLog?: string }): Promise<string>;
    createDeepLinkingMessage(token: unknown, contentItems: unknown[], options?: { message?: string; errMessage?: string; log?: string; errLog?: string }): Promise<string>;
  }

  export interface LtijsProvider {
    /** The Provider class: ltijs exports only an instance of it. */
    readonly constructor: new () => LtijsProvider;
    app: Application;
    Database: unknown;
    NamesAndRoles: LtijsNamesAndRoles;
    DeepLinking: LtijsDeepLinking;
    setup(encryptionKey: string, database: { plugin: unknown }, options?: LtijsSetupOptions): LtijsProvider;
    deploy(options?: { serverless?: boolean; silent?: boolean; port?: number }): Promise<boolean>;
    close(options?: { silent?: boolean }): Promise<boolean>;
    onConnect(callback: LtijsConnectCallback): void;
    onDeepLinking(callback: LtijsConnectCallback): void;
    onInvalidToken(callback: (req: Request, res: Response, next: NextFunction) => unknown): void;
    onSessionTimeout(callback: (req: Request, res: Response, next: NextFunction) => unknown): void;
    onUnregisteredPlatform(callback: (req: Request, res: Response, next: NextFunction) => unknown): void;
    onInactivePlatform(callback: (req: Request, res: Response, next: NextFunction) => unknown): void;
    registerPlatform(platform: LtijsPlatformRegistration): Promise<LtijsPlatform>;
    getPlatform(url: string, clientId: string): Promise<LtijsPlatform | false>;
    getPlatform(url: string): Promise<LtijsPlatform[] | false>;
    getAllPlatforms(): Promise<LtijsPlatform[]>;
    deletePlatform(url: string, clientId: string): Promise<boolean>;
    whitelist(...routes: Array<string | RegExp | { route: string | RegExp; method: string }>): unknown;
    redirect(res: Response, path: string, options?: { newResource?: boolean; query?: Record<string, string> }): Promise<void>;
  }

  const ltijs: { Provider: LtijsProvider };
  export default ltijs;
  export type { RequestHandler };
}

// ltijs internals the adapter replaces with its own hardened versions (see src/lti/provider.ts).
declare module 'ltijs/dist/Utils/Auth.js' {
  import type { LtijsAccessToken } from 'ltijs';
  type GetPlatform = (iss: string, clientId?: string, encryptionKey?: string, database?: unknown) => Promise<unknown>;
  const Auth: {
    validateToken(
      token: string,
      devMode: boolean,
      validationParameters: { iss?: string; maxAge?: number | false },
      getPlatform: GetPlatform,
      encryptionKey: string,
      database: unknown,
    ): Promise<Record<string, unknown>>;
    /** Always asks the token endpoint (client-credentials grant) and replaces the cached token. */
    getAccessToken(scopes: string, platform: unknown, encryptionKey: string, database: unknown): Promise<LtijsAccessToken>;
  };
  export default Auth;
}

declare module 'ltijs/dist/Utils/Request.js' {
  const Request: {
    ltiAdvantageLogin(
      request: Record<string, string | undefined>,
      platform: unknown,
      state: string,
    ): Promise<Record<string, string>>;
  };
  export default Request;
}
