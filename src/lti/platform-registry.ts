import type { LtijsPlatform, LtijsProvider } from 'ltijs';
import type { DeploymentStore } from './deployments.js';
import type { LtiAdapter } from './provider.js';

/** The platforms ltijs knows (its `platform` documents), with the deployments the tool keeps beside them. */
export function createPlatformRegistry(lti: LtijsProvider, deployments: DeploymentStore): LtiAdapter['platforms'] {
  async function findLtijsPlatform(issuer: string, clientId: string): Promise<LtijsPlatform | undefined> {
    return (await lti.getPlatform(issuer, clientId)) || undefined;
  }
  return {
    async register(input) {
      const authConfig =
        'jwksUrl' in input.key
          ? { method: 'JWK_SET' as const, key: input.key.jwksUrl }
          : 'jwk' in input.key
            ? { method: 'JWK_KEY' as const, key: input.key.jwk }
            : { method: 'RSA_KEY' as const, key: input.key.publicKeyPem };
      await lti.registerPlatform({
        url: input.issuer,
        clientId: input.clientId,
        name: input.name ?? new URL(input.issuer).host,
        authenticationEndpoint: input.authUrl,
        accesstokenEndpoint: input.tokenUrl,
        authorizationServer: input.authorizationServer,
        authConfig,
      });
      for (const deploymentId of input.deploymentIds) await deployments.add(input.issuer, input.clientId, deploymentId);
    },
    async list() {
      const platforms = await lti.getAllPlatforms();
      return Promise.all(
        platforms.map(async (platform) => {
          const issuer = await platform.platformUrl();
          const clientId = await platform.platformClientId();
          return {
            issuer,
            clientId,
            name: await platform.platformName(),
            active: await platform.platformActive(),
            authUrl: await platform.platformAuthEndpoint(),
            tokenUrl: await platform.platformAccessTokenEndpoint(),
            ...(await (async () => {
              const authConfig = await platform.platformAuthConfig();
              return { keyMethod: authConfig.method, jwksUrl: authConfig.method === 'JWK_SET' ? authConfig.key : undefined };
            })()),
            deploymentIds: await deployments.list(issuer, clientId),
          };
        }),
      );
    },
    async remove(issuer, clientId) {
      const platform = await findLtijsPlatform(issuer, clientId);
      await deployments.removeAll(issuer, clientId);
      if (!platform) return false;
      await lti.deletePlatform(issuer, clientId);
      return true;
    },
    async setActive(issuer, clientId, active) {
      const platform = await findLtijsPlatform(issuer, clientId);
      if (!platform) throw new Error(`no platform ${issuer} with client id ${clientId}`);
      await platform.platformActive(active);
    },
  };
}
