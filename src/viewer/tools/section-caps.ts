import { BufferAttribute, BufferGeometry, Color, Layers, LessEqualDepth, Mesh, type Group, type Material, type Object3D, type Plane } from 'three';
import { LineMaterial } from 'three/examples/jsm/lines/LineMaterial.js';
import { LineSegments2 } from 'three/examples/jsm/lines/LineSegments2.js';
import { LineSegmentsGeometry } from 'three/examples/jsm/lines/LineSegmentsGeometry.js';
import { BATCHED_LAYER, SCENE_LAYER } from '../../engine/layers';
import type { Picker } from '../pick-types';
import type { ToolContext } from './context';
import { contrastingColor, createCapMaterial, exemptFromClipping } from './helper-materials';
import { buildCap, isCappable } from './section-cap';
import { capPart, type CapPart } from './surface-picker';

/** Caps follow a moving plane at most this often (ms); a last rebuild follows the end of a drag. */
export const CAP_REBUILD_MS = 120;

export type CapMaterial = ReturnType<typeof createCapMaterial>;

/** One section plane as the section tool keeps it. */
export interface PlaneEntry {
  eid: number;
  number: number;
  plane: Plane;
  /** Centre of the square on the plane; its +Z axis is the plane's normal. The gizmo moves it. */
  pivot: Object3D;
  square: Mesh;
  outline: LineSegments2;
  caps: Group;
  capMaterials: Map<number, CapMaterial>;
  /** The cut's outline per cap colour, in the colour's contrasting colour. */
  capLineMaterials: Map<number, LineMaterial>;
  capArea: number;
  /** The caps' outlines, for picking and snapping on the cut (surface-picker.ts). */
  capParts: CapPart[];
}

export interface SectionCaps {
  /** Planes whose caps must follow, with whether at once (a drag ended, a flip) or throttled. */
  readonly due: Map<number, 'now' | 'throttled'>;
  /** Rebuilds a plane's caps now. */
  rebuild(entry: PlaneEntry): void;
  /** Rebuilds the due caps (the throttled ones at most every CAP_REBUILD_MS); the frame's helpers step. */
  rebuildDue(now: number): void;
  /** The renderer's clipping planes: one per plane, each cap material skipping its own. */
  syncClipping(): void;
  /** The caps' outlines of every plane, for the surface picker. */
  publish(): void;
  /** A plane went. */
  forget(eid: number): void;
}

const MODEL_LAYERS = new Layers();
MODEL_LAYERS.set(SCENE_LAYER);
MODEL_LAYERS.enable(BATCHED_LAYER); // meshes a batch draws are cut as themselves

/**
 * The caps of the section planes: the cut faces of the closed meshes each plane cuts
 * (section-cap.ts), in each mesh's colour, cut by the other planes but not their own, with the
 * cut's outline in a contrasting colour; rebuilt at most every CAP_REBUILD_MS while a plane moves
 * and once more when it stops.
 */
export function createSectionCaps(ctx: ToolContext, entries: ReadonlyMap<number, PlaneEntry>): SectionCaps {
  const clippingPlanes: Plane[] = [];
  const due = new Map<number, 'now' | 'throttled'>();
  const lastCap = new Map<number, number>();

  const syncClipping = () => {
    clippingPlanes.length = 0;
    for (const entry of entries.values()) {
      for (const material of entry.capMaterials.values()) material.userData.skipPlane.value = clippingPlanes.length;
      clippingPlanes.push(entry.plane);
    }
    ctx.renderer.clippingPlanes = clippingPlanes;
  };

  const publish = () => {
    const parts: CapPart[] = [];
    for (const entry of entries.values()) parts.push(...entry.capParts);
    ctx.setCaps(parts);
  };

  const capLineMaterialFor = (entry: PlaneEntry, capMaterial: CapMaterial): LineMaterial => {
    const hex = capMaterial.color.getHex();
    let material = entry.capLineMaterials.get(hex);
    if (!material) {
      material = exemptFromClipping(new LineMaterial({ color: contrastingColor(capMaterial.color).getHex(), linewidth: 2, worldUnits: false }));
      // On the cap's plane: drawn where the cap is (ties pass); never cut (it lies on its own plane,
      // where clipping would cut it by rounding).
      material.depthFunc = LessEqualDepth;
      entry.capLineMaterials.set(hex, material);
    }
    return material;
  };

  const capMaterialFor = (entry: PlaneEntry, mesh: Mesh): CapMaterial => {
    const source = Array.isArray(mesh.material) ? mesh.material[0] : mesh.material;
    const colour = (source as Material & { color?: Color }).color;
    const hex = colour ? colour.getHex() : 0x9aa4ae;
    let material = entry.capMaterials.get(hex);
    if (!material) {
      material = createCapMaterial(new Color(hex));
      entry.capMaterials.set(hex, material);
      syncClipping();
    }
    return material;
  };

  const rebuild = (entry: PlaneEntry) => {
    for (const child of [...entry.caps.children]) {
      (child as Mesh).geometry.dispose();
      entry.caps.remove(child);
    }

    entry.capParts = [];
    let area = 0;
    // The picker's trees when it has them (ViewerPicker.treeOf), so a geometry gets one tree.
    const picker = ctx.picker() as Picker & { treeOf?: (mesh: Mesh) => unknown };
    const treeOf = picker.treeOf ? (mesh: Mesh) => picker.treeOf!(mesh) : undefined;
    for (const record of ctx.world.models.values()) {
      record.root.traverseVisible((object) => {
        const mesh = object as Mesh;
        if (!mesh.isMesh || !object.layers.test(MODEL_LAYERS) || !isCappable(mesh)) return;
        let cap;
        try {
          cap = buildCap(mesh, entry.plane, treeOf);
        } catch (error) {
          console.warn(`The cut of "${mesh.name}" could not be capped:`, error);
          return;
        }
        if (!cap || cap.positions.length === 0) return;
        area += cap.area;
        const geometry = new BufferGeometry();
        geometry.setAttribute('position', new BufferAttribute(cap.positions, 3));
        const normals = new Float32Array(cap.positions.length);
        // Caps face the cut-away side, where the person looks from.
        for (let i = 0; i < normals.length; i += 3) {
          normals[i] = -entry.plane.normal.x;
          normals[i + 1] = -entry.plane.normal.y;
          normals[i + 2] = -entry.plane.normal.z;
        }
        geometry.setAttribute('normal', new BufferAttribute(normals, 3));
        geometry.computeBoundingSphere();
        const capMaterial = capMaterialFor(entry, mesh);
        const capMesh = new Mesh(geometry, capMaterial);
        capMesh.name = `Section cap of ${mesh.name || 'mesh'}`;
        capMesh.matrixAutoUpdate = false;
        entry.caps.add(capMesh);
        const outline = cutOutline(cap.outline, cap.loopStarts, capLineMaterialFor(entry, capMaterial));
        if (outline) entry.caps.add(outline);
        entry.capParts.push(capPart(entry.plane, mesh, cap));
      });
    }
    publish();
    entry.capArea = area;
    entry.caps.updateMatrixWorld(true);
    lastCap.set(entry.eid, performance.now());
    ctx.redraw();
    ctx.changed();
  };

  return {
    due,
    rebuild,
    rebuildDue(now) {
      for (const [eid, when] of due) {
        const entry = entries.get(eid);
        if (!entry) {
          due.delete(eid);
          continue;
        }
        if (when === 'throttled' && now - (lastCap.get(eid) ?? 0) < CAP_REBUILD_MS) continue;
        due.delete(eid);
        rebuild(entry);
      }
    },
    syncClipping,
    publish,
    forget(eid) {
      due.delete(eid);
      lastCap.delete(eid);
    },
  };
}

/** The cut's closed loops as screen-constant line segments (null when there is no loop). */
export function cutOutline(outline: Float32Array, loopStarts: Uint32Array, material: LineMaterial): LineSegments2 | null {
  const positions: number[] = [];
  for (let l = 0; l + 1 < loopStarts.length; l++) {
    const start = loopStarts[l];
    const end = loopStarts[l + 1];
    for (let i = start; i < end; i++) {
      const j = i + 1 < end ? i + 1 : start;
      positions.push(outline[i * 3], outline[i * 3 + 1], outline[i * 3 + 2], outline[j * 3], outline[j * 3 + 1], outline[j * 3 + 2]);
    }
  }
  if (positions.length === 0) return null;
  const geometry = new LineSegmentsGeometry();
  geometry.setPositions(positions);
  const lines = new LineSegments2(geometry, material);
  lines.name = 'Section cut outline';
  lines.matrixAutoUpdate = false;
  lines.renderOrder = 1;
  return lines;
}
