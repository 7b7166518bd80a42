import { Quaternion, Vector3 } from 'three';
import { Transform } from '../../../components';
import { deleteMeasurementPoints, measurementPoints, setMeasurementPoints } from '../../../src/engine/measurement-data';
import { addViewerEntity, createViewerWorld, type ViewerWorld } from '../../../src/engine/world';
import { Emitter, type ViewerEventMap } from '../../../src/viewer/events';
import type { MeasureKind } from '../../../src/viewer/tools/measure-machine';
import type { SharedToolsMeeting, SharedToolsTarget } from '../../../src/meeting/shared-tools';

/**
 * A meeting server in memory for the shared tools' tests: each participant's `call` is relayed to
 * the others with args[0] set to the sender's id (as the server does), through a JSON round trip;
 * deliveries wait in each participant's inbox until `deliver` (as the message system applies
 * queued RFCs in the frame).
 */
export class FakeHub {
  readonly participants = new Map<string, FakeParticipant>();
  /** Every relayed call: sender, object, function, the frame's size. */
  readonly log: { from: string; object: string; fn: string; args: unknown[]; bytes: number }[] = [];

  join(id: string): FakeParticipant {
    const p = new FakeParticipant(this, id);
    this.participants.set(id, p);
    return p;
  }

  relay(from: string, object: string, fn: string, args: unknown[]): boolean {
    const sender = this.participants.get(from);
    if (!sender?.online) return false;
    const relayed = args.length > 0 ? args.slice() : [from];
    relayed[0] = from;
    const frame = JSON.stringify({ type: 'RFC', object, function: fn, args: relayed });
    this.log.push({ from, object, fn, args: relayed, bytes: frame.length });
    for (const p of this.participants.values()) if (p !== sender && p.online) p.inbox.push(JSON.parse(frame));
    return true;
  }

  /** Delivers every waiting call, in rounds, until nothing is left (answers to answers too). */
  settle(): void {
    for (let round = 0; round < 20; round++) {
      let any = false;
      for (const p of this.participants.values()) any = p.deliver() > 0 || any;
      if (!any) return;
    }
    throw new Error('The fake meeting did not settle.');
  }

  sent(from: string, fn?: string) {
    return this.log.filter((l) => l.from === from && (fn === undefined || l.fn === fn));
  }
}

export class FakeParticipant {
  online = true;
  inbox: { object: string; function: string; args: unknown[] }[] = [];
  readonly objects = new Map<string, Record<string, (sender: string, args: unknown[]) => void>>();
  readonly meeting: SharedToolsMeeting & { selfId(): string | null };

  constructor(
    readonly hub: FakeHub,
    readonly id: string,
  ) {
    this.meeting = {
      call: (object, fn, args) => hub.relay(id, object, fn, args),
      register: (object, handlers) => {
        if (this.objects.has(object)) throw new Error(`'${object}' is already registered`);
        this.objects.set(object, handlers);
        return () => this.objects.delete(object);
      },
      selfId: () => (this.online ? id : null),
    };
  }

  deliver(): number {
    const batch = this.inbox.splice(0);
    for (const m of batch) {
      const handler = this.objects.get(m.object)?.[m.function];
      if (!handler) throw new Error(`${this.id} has no ${m.object}.${m.function}`);
      handler(m.args[0] as string, m.args);
    }
    return batch.length;
  }
}

/**
 * The tools a sharer drives, on a real world: planes keep their pose in the ECS Transform (float32,
 * as the section tool does), measurements their points in the engine's data; every change raises
 * the viewer's events synchronously, as the real tools do.
 */
export function fakeTools(world: ViewerWorld = createViewerWorld()) {
  const events = new Emitter<ViewerEventMap>();
  const planes = new Set<number>();
  const kinds = new Map<number, MeasureKind>();
  const n = new Vector3();
  const sectionEvent = (eid: number, action: 'created' | 'updated' | 'deleted') => {
    n.set(0, 0, 1).applyQuaternion(new Quaternion().fromArray(Transform.rotation, eid * 4));
    const p = new Vector3().fromArray(Transform.position, eid * 3);
    events.emit('section', { action, id: eid, normal: { x: n.x, y: n.y, z: n.z }, constant: -n.dot(p) });
  };
  const measurementEvent = (eid: number, action: 'created' | 'updated' | 'deleted') =>
    events.emit('measurement', { action, id: eid, kind: kinds.get(eid)!, value: 0, label: '', points: measurementPoints(world, eid).map((p) => ({ x: p.x, y: p.y, z: p.z })) });
  const writePose = (eid: number, position: Vector3, rotation: Quaternion) => {
    Transform.position.set(position.toArray(), eid * 3);
    Transform.rotation.set(rotation.toArray(), eid * 4);
  };
  const sections = {
    /** The person's own plane (the tool's double-click). */
    create(point: Vector3, normal: Vector3): number {
      const eid = addViewerEntity(world);
      planes.add(eid);
      writePose(eid, point, new Quaternion().setFromUnitVectors(new Vector3(0, 0, 1), normal.clone().normalize()));
      sectionEvent(eid, 'created');
      return eid;
    },
    place(position: Vector3, rotation: Quaternion): number {
      const eid = addViewerEntity(world);
      planes.add(eid);
      writePose(eid, position, rotation);
      sectionEvent(eid, 'created');
      return eid;
    },
    pose(eid: number, position: Vector3, rotation: Quaternion): boolean {
      if (!planes.has(eid)) return false;
      position.fromArray(Transform.position, eid * 3);
      rotation.fromArray(Transform.rotation, eid * 4);
      return true;
    },
    setPose(eid: number, position: Vector3, rotation: Quaternion): void {
      if (!planes.has(eid)) throw new Error(`There is no section plane ${eid}.`);
      writePose(eid, position, rotation);
    },
    /** A drag or a flip: the Transform changes, no event until it ends. */
    move(eid: number, position: Vector3): void {
      Transform.position.set(position.toArray(), eid * 3);
    },
    remove(eid: number): void {
      if (!planes.delete(eid)) throw new Error(`There is no section plane ${eid}.`);
      sectionEvent(eid, 'deleted');
    },
    list() {
      return [...planes].map((eid) => {
        const normal = new Vector3(0, 0, 1).applyQuaternion(new Quaternion().fromArray(Transform.rotation, eid * 4));
        const position = Array.from(Transform.position.subarray(eid * 3, eid * 3 + 3));
        return { id: eid, position, rotation: Array.from(Transform.rotation.subarray(eid * 4, eid * 4 + 4)), normal, constant: -normal.dot(new Vector3().fromArray(position)) };
      });
    },
  };
  const measurements = {
    /** The person's own measurement (a tool finished it). */
    complete(kind: MeasureKind, points: Vector3[]): number {
      const eid = addViewerEntity(world);
      kinds.set(eid, kind);
      setMeasurementPoints(world, eid, points);
      measurementEvent(eid, 'created');
      return eid;
    },
    restore(kind: MeasureKind, points: readonly Vector3[]): number {
      const eid = addViewerEntity(world);
      kinds.set(eid, kind);
      setMeasurementPoints(world, eid, points);
      measurementEvent(eid, 'created');
      return eid;
    },
    setPoints(eid: number, points: readonly Vector3[]): void {
      if (!kinds.has(eid)) throw new Error(`There is no measurement ${eid}.`);
      setMeasurementPoints(world, eid, points);
      measurementEvent(eid, 'updated');
    },
    /** A point dragged: the engine's point moves, 'updated' only on release. */
    drag(eid: number, i: number, point: Vector3): void {
      const data = world.measurementPoints.get(eid)!;
      data[i * 3] = point.x;
      data[i * 3 + 1] = point.y;
      data[i * 3 + 2] = point.z;
    },
    remove(eid: number): void {
      if (!kinds.has(eid)) throw new Error(`There is no measurement ${eid}.`);
      measurementEvent(eid, 'deleted');
      kinds.delete(eid);
      deleteMeasurementPoints(world, eid);
    },
    list() {
      return [...kinds].map(([eid, kind]) => ({ id: eid, kind, points: measurementPoints(world, eid).map((p) => p.toArray()) }));
    },
  };
  const target: SharedToolsTarget = { world, events, sections, measurements };
  return { world, events, sections, measurements, target };
}
