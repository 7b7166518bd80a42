import { child, children, readDirection, readNumber, readPoint, type XmlDomElement } from './xml-reader.ts';
import { el, renderXml, textEl, type XmlElement } from './xml-writer.ts';
import { BCF_FOV_MAX, BCF_FOV_MIN, BcfExportError, BcfImportError, toBcfAxes, type BcfCamera, type BcfViewpoint } from './model.ts';

/**
 * A viewpoint's file (`.bcfv`, visinfo.xsd): the camera, the clipping planes and the lines, written
 * in BCF's Z-up axes and read back into ours.
 */

// ---- write -------------------------------------------------------------------------------------

/** A number as the XML writes it; one that is not finite cannot be written. */
export function num(value: number, what: string): string {
  if (!Number.isFinite(value)) throw new BcfExportError(`BCF export: ${what} is not a finite number (${value})`);
  return String(value === 0 ? 0 : value);
}

export function xyz(name: string, v: readonly number[], what: string): XmlElement {
  const [x, y, z] = toBcfAxes(v);
  return el(name, {}, textEl('X', num(x, what)), textEl('Y', num(y, what)), textEl('Z', num(z, what)));
}

/** The viewpoint's `.bcfv` file. Throws BcfExportError for a value that is not a finite number. */
export function visinfoXml(vp: BcfViewpoint): string {
  const cam = vp.camera;
  const what = `viewpoint ${vp.guid}`;
  const camera = cam && [
    xyz('CameraViewPoint', cam.position, `${what}: camera position`),
    xyz('CameraDirection', cam.direction, `${what}: camera direction`),
    xyz('CameraUpVector', cam.up, `${what}: camera up`),
  ];
  return renderXml(
    el(
      'VisualizationInfo',
      { Guid: vp.guid },
      // The schema's order: Components, OrthogonalCamera, PerspectiveCamera, Lines, ClippingPlanes, Bitmap.
      cam?.kind === 'orthogonal' && el('OrthogonalCamera', {}, camera, textEl('ViewToWorldScale', num(cam.viewToWorldScale, `${what}: view to world scale`))),
      cam?.kind === 'perspective' &&
        el(
          'PerspectiveCamera',
          {},
          camera,
          textEl('FieldOfView', num(Math.min(BCF_FOV_MAX, Math.max(BCF_FOV_MIN, cam.fieldOfView)), `${what}: field of view`)),
        ),
      vp.lines.length > 0 &&
        el(
          'Lines',
          {},
          vp.lines.map((line) => el('Line', {}, xyz('StartPoint', line.start, `${what}: line`), xyz('EndPoint', line.end, `${what}: line`))),
        ),
      vp.clippingPlanes.length > 0 &&
        el(
          'ClippingPlanes',
          {},
          vp.clippingPlanes.map((plane) =>
            el('ClippingPlane', {}, xyz('Location', plane.location, `${what}: clipping plane`), xyz('Direction', plane.direction, `${what}: clipping plane`)),
          ),
        ),
    ),
  );
}

// ---- read --------------------------------------------------------------------------------------

/** A viewpoint from its `.bcfv` file's root element (the snapshot is the markup's business). */
export function readVisinfo(root: XmlDomElement, guid: string, where: string): BcfViewpoint {
  const vp: BcfViewpoint = { guid, clippingPlanes: [], lines: [] };
  const camera = readCamera(root, where);
  if (camera) vp.camera = camera;
  const planes = child(root, 'ClippingPlanes');
  if (planes) {
    for (const plane of children(planes, 'ClippingPlane')) {
      vp.clippingPlanes.push({
        location: readPoint(plane, 'Location', `${where}, ClippingPlane`),
        direction: readDirection(plane, 'Direction', `${where}, ClippingPlane`),
      });
    }
  }
  const lines = child(root, 'Lines');
  if (lines) {
    for (const line of children(lines, 'Line')) {
      vp.lines.push({ start: readPoint(line, 'StartPoint', `${where}, Line`), end: readPoint(line, 'EndPoint', `${where}, Line`) });
    }
  }
  return vp;
}

export function readCamera(root: XmlDomElement, where: string): BcfCamera | undefined {
  const persp = child(root, 'PerspectiveCamera');
  const ortho = child(root, 'OrthogonalCamera');
  if (persp) {
    const at = `${where}, PerspectiveCamera`;
    const position = readPoint(persp, 'CameraViewPoint', at);
    const direction = readDirection(persp, 'CameraDirection', at);
    const up = readDirection(persp, 'CameraUpVector', at);
    const fieldOfView = readNumber(persp, 'FieldOfView', at);
    if (!(fieldOfView > 0 && fieldOfView < 180)) throw new BcfImportError(`${at}: FieldOfView ${fieldOfView} is not between 0 and 180 degrees`);
    return { kind: 'perspective', position, direction, up, fieldOfView };
  }
  if (ortho) {
    const at = `${where}, OrthogonalCamera`;
    const position = readPoint(ortho, 'CameraViewPoint', at);
    const direction = readDirection(ortho, 'CameraDirection', at);
    const up = readDirection(ortho, 'CameraUpVector', at);
    const viewToWorldScale = readNumber(ortho, 'ViewToWorldScale', at);
    if (!(viewToWorldScale > 0)) throw new BcfImportError(`${at}: ViewToWorldScale ${viewToWorldScale} is not positive`);
    return { kind: 'orthogonal', position, direction, up, viewToWorldScale };
  }
  return undefined;
}
