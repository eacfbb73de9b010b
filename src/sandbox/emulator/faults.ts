import { z } from 'zod';

/** How a launch's success body is shaped (the real shape is not documented; public clients of this API accept several). */
export const BODY_SHAPES = ['text', 'json-string', 'array', 'object', 'percent-encoded', 'number', 'garbage'] as const;
export type BodyShape = (typeof BODY_SHAPES)[number];

const times = z.int().min(1).optional();

/** One injected fault; `times` limits it to the next N requests, otherwise it lasts until cleared. */
export const faultSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('latency'), ms: z.int().min(0).max(120_000), times }),
  z.strictObject({ kind: z.literal('status'), status: z.int().min(400).max(599), body: z.string().max(10_000).optional(), times }),
  z.strictObject({ kind: z.literal('drop'), times }),
  z.strictObject({ kind: z.literal('body'), shape: z.enum(BODY_SHAPES), times }),
]);
export type Fault = z.infer<typeof faultSchema>;
export type FaultKind = Fault['kind'];

/** What the faults decide for one request. */
export interface FaultPlan {
  latencyMs?: number;
  drop?: boolean;
  status?: { status: number; body?: string };
}

export interface FaultControls {
  inject(fault: Fault): void;
  /** Clears every fault, or those of one kind. */
  clear(kind?: FaultKind): void;
  /** The active faults, with what is left of each. */
  list(): Fault[];
  /** Consumes the latency, drop and status faults for one API request. */
  takeForRequest(): FaultPlan;
  /** Consumes the body-shape fault for one launch answer. */
  takeBodyShape(): BodyShape | undefined;
}

export function createFaultControls(): FaultControls {
  let active: Fault[] = [];

  function take<K extends FaultKind>(kind: K): Extract<Fault, { kind: K }> | undefined {
    const fault = active.find((f): f is Extract<Fault, { kind: K }> => f.kind === kind);
    if (!fault) return undefined;
    if (fault.times !== undefined) {
      const index = active.indexOf(fault);
      if (fault.times <= 1) active.splice(index, 1);
      else active[index] = { ...fault, times: fault.times - 1 };
    }
    return fault;
  }

  return {
    inject(fault) {
      active.push(faultSchema.parse(fault));
    },
    clear(kind) {
      active = kind ? active.filter((f) => f.kind !== kind) : [];
    },
    list: () => active.map((f) => ({ ...f })),
    takeForRequest() {
      const latency = take('latency');
      const drop = take('drop');
      const status = drop ? undefined : take('status');
      return {
        latencyMs: latency?.ms,
        drop: drop !== undefined,
        status: status ? { status: status.status, body: status.body } : undefined,
      };
    },
    takeBodyShape: () => take('body')?.shape,
  };
}
