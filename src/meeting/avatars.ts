import { addComponent, removeComponent } from 'bitecs';
import {
  CanvasTexture,
  CapsuleGeometry,
  Color,
  Group,
  Mesh,
  MeshStandardMaterial,
  SphereGeometry,
  Sprite,
  SpriteMaterial,
  BoxGeometry,
  TorusGeometry,
  MeshBasicMaterial,
  SRGBColorSpace,
  type Object3D,
} from 'three';
import { Avatar, Transform, Visibility } from '../../components';
import { addTransform, removeTransformEntity, markTransformDirty } from '../engine/hierarchy';
import { flagObject } from '../engine/object-flags';
import { bindObject, unbindObject } from '../engine/registry';
import { detachFromThreeMatrixUpdates } from '../engine/sync';
import { addViewerEntity, type ViewerWorld } from '../engine/world';
import { displayName, type MeetingClient, type Vec3 } from '../protocol/meeting';

/**
 * Avatars of the other participants (editor specification: avatars and follow mode): an avatar model
 * made here (a capsule body, a head with a visor that shows where the person looks, the person's
 * colour, a name label above) and a cursor ring at the person's pointer. Each is an entity; the
 * avatar smoothing system moves them; Visibility shows or hides them (rtcAvatarsEnabled, follow
 * mode). Geometry is shared by all avatars; each person has one material of their colour.
 */

export interface AvatarEntry {
  client: MeetingClient;
  eid: number;
  head: number;
  cursor: number;
  root: Object3D;
  cursorObject: Object3D;
  material: MeshStandardMaterial;
  label: Sprite;
}

/** A colour per person: a hue from the client id (stable across reconnects of the page? no: per connection). */
export function avatarColor(id: string): Color {
  let hash = 2166136261;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 16777619) >>> 0;
  // Golden-angle steps spread neighbouring hashes; saturation and lightness stay readable on any background.
  const hue = ((hash % 360) * 137.508) % 360;
  return new Color().setHSL(hue / 360, 0.65, 0.5, SRGBColorSpace);
}

let shared: { body: CapsuleGeometry; head: SphereGeometry; visor: BoxGeometry; ring: TorusGeometry; dot: SphereGeometry; visorMaterial: MeshStandardMaterial } | null = null;
function sharedGeometry() {
  shared ??= {
    body: new CapsuleGeometry(0.22, 0.5, 6, 16),
    head: new SphereGeometry(0.2, 24, 16),
    visor: new BoxGeometry(0.26, 0.09, 0.12),
    ring: new TorusGeometry(0.12, 0.025, 8, 32),
    dot: new SphereGeometry(0.04, 12, 8),
    visorMaterial: new MeshStandardMaterial({ color: 0x1b1f2a, roughness: 0.3, metalness: 0.2 }),
  };
  return shared;
}

function nameTexture(text: string, color: Color): CanvasTexture {
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d')!;
  const font = '600 36px system-ui, sans-serif';
  ctx.font = font;
  const width = Math.min(1024, Math.ceil(ctx.measureText(text).width) + 40);
  canvas.width = width;
  canvas.height = 56;
  ctx.font = font;
  ctx.fillStyle = 'rgba(20, 24, 32, 0.78)';
  ctx.beginPath();
  ctx.roundRect(0, 0, width, 56, 28);
  ctx.fill();
  ctx.fillStyle = `#${color.getHexString(SRGBColorSpace)}`;
  ctx.fillRect(14, 20, 16, 16);
  ctx.fillStyle = '#ffffff';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, 36, 29);
  const texture = new CanvasTexture(canvas);
  texture.colorSpace = SRGBColorSpace;
  return texture;
}

/** Spawns a person's avatar and cursor in the scene, hidden until their first transform update. */
export function spawnAvatar(world: ViewerWorld, client: MeetingClient): AvatarEntry {
  const scene = world.render.scene;
  if (!scene) throw new Error('Scene hasn\'t been initialised.');
  const g = sharedGeometry();
  const color = avatarColor(client._id);
  const material = new MeshStandardMaterial({ color, roughness: 0.55, metalness: 0.05 });

  const root = new Group();
  root.name = `avatar:${displayName(client)}`;
  const body = new Mesh(g.body, material);
  body.position.y = -0.65;
  root.add(body);
  const headObject = new Group();
  headObject.name = 'avatar-head';
  const head = new Mesh(g.head, material);
  const visor = new Mesh(g.visor, g.visorMaterial);
  visor.position.set(0, 0.02, -0.15);
  headObject.add(head, visor);
  const texture = nameTexture(displayName(client), color);
  const label = new Sprite(new SpriteMaterial({ map: texture, depthWrite: false, transparent: true }));
  label.center.set(0.5, 0);
  label.position.y = 0.3;
  const aspect = texture.image.width / texture.image.height;
  label.scale.set(0.28 * aspect, 0.28, 1);
  label.renderOrder = 10;
  root.add(label);

  const cursorObject = new Group();
  cursorObject.name = `cursor:${displayName(client)}`;
  const ringMaterial = new MeshBasicMaterial({ color, depthTest: false, transparent: true, opacity: 0.9 });
  const ring = new Mesh(g.ring, ringMaterial);
  ring.rotation.x = -Math.PI / 2;
  const dot = new Mesh(g.dot, ringMaterial);
  cursorObject.add(ring, dot);
  cursorObject.renderOrder = 11;
  ring.renderOrder = 11;
  dot.renderOrder = 11;

  const eid = addViewerEntity(world);
  addTransform(world, eid, 0);
  const headEid = addViewerEntity(world);
  addTransform(world, headEid, eid);
  const cursor = addViewerEntity(world);
  addTransform(world, cursor, 0);
  for (const [e, object] of [
    [eid, root],
    [headEid, headObject],
    [cursor, cursorObject],
  ] as const) {
    detachFromThreeMatrixUpdates(object);
    bindObject(world, e, object);
    addComponent(world, e, Visibility);
    Visibility.visible[e] = 0;
    object.visible = false;
    flagObject(world, e);
  }
  Visibility.visible[headEid] = 1;
  headObject.visible = true;
  root.add(headObject);
  scene.add(root, cursorObject);

  addComponent(world, eid, Avatar);
  Avatar.head[eid] = headEid;
  Avatar.cursor[eid] = cursor;
  Avatar.moving[eid] = 0;
  Avatar.placed[eid] = 0;
  Avatar.shown[eid] = 0;
  Avatar.cursorShown[eid] = 0;
  Avatar.near[eid] = 0;
  for (let k = 0; k < 3; k++) {
    Avatar.targetPosition[eid * 3 + k] = 0;
    Avatar.targetLook[eid * 3 + k] = 0;
    Avatar.look[eid * 3 + k] = 0;
    Avatar.targetCursor[eid * 3 + k] = 0;
  }
  return { client, eid, head: headEid, cursor, root, cursorObject, material, label };
}

/**
 * A new pose from handleTransformUpdate: camera position and target, and the pointer's point (null:
 * off the model, the cursor hides). The first update places the avatar at once.
 */
export function setAvatarTarget(world: ViewerWorld, entry: AvatarEntry, position: Vec3, target: Vec3, cursor: Vec3 | null | undefined, shown: boolean): void {
  const e = entry.eid;
  const o = e * 3;
  for (let k = 0; k < 3; k++) {
    Avatar.targetPosition[o + k] = position[k];
    Avatar.targetLook[o + k] = target[k];
  }
  if (Avatar.placed[e] === 0) {
    Avatar.placed[e] = 1;
    for (let k = 0; k < 3; k++) {
      Transform.position[o + k] = position[k];
      Avatar.look[o + k] = target[k];
    }
    markTransformDirty(world, e);
  }
  if (cursor) {
    const q = entry.cursor * 3;
    const wasHidden = Avatar.cursorShown[e] === 0;
    for (let k = 0; k < 3; k++) {
      Avatar.targetCursor[o + k] = cursor[k];
      if (wasHidden) Transform.position[q + k] = cursor[k];
    }
  }
  Avatar.moving[e] = 1;
  showAvatar(world, entry, shown, cursor !== null && cursor !== undefined);
}

/**
 * Shows or hides an avatar (and its cursor: shown only with the avatar and while it has a point);
 * the avatar smoothing system applies it, and also hides an avatar around this viewer's camera.
 */
export function showAvatar(world: ViewerWorld, entry: AvatarEntry, shown: boolean, cursorShown = Avatar.cursorShown[entry.eid] === 1): void {
  Avatar.shown[entry.eid] = shown ? 1 : 0;
  Avatar.cursorShown[entry.eid] = cursorShown ? 1 : 0;
  world.render.needsRender = true;
}

export function despawnAvatar(world: ViewerWorld, entry: AvatarEntry): void {
  removeComponent(world, entry.eid, Avatar);
  for (const e of [entry.cursor, entry.head, entry.eid]) {
    const object = unbindObject(world, e);
    object?.removeFromParent();
    removeTransformEntity(world, e);
  }
  entry.material.dispose();
  (entry.label.material as SpriteMaterial).map?.dispose();
  entry.label.material.dispose();
  for (const child of entry.cursorObject.children) ((child as Mesh).material as MeshBasicMaterial).dispose();
  world.render.needsRender = true;
}
