import { describe, expect, it } from 'vitest';
import { BcfExportError, type BcfViewpoint } from '../../../../src/protocol/bcf/model';
import { num, readCamera, readVisinfo, visinfoXml } from '../../../../src/protocol/bcf/visinfo';
import { parseXml } from '../../../../src/protocol/bcf/xml-reader';
import { V1, V2, sampleProject } from '../../../support/bcf-fixtures';

const read = (vp: BcfViewpoint) => readVisinfo(parseXml(visinfoXml(vp), 'v.bcfv'), vp.guid, 'v.bcfv');

describe('visinfo', () => {
  it('writes a viewpoint in BCF axes and reads it back the same, without its snapshot', () => {
    const [perspective, orthogonal] = sampleProject().topics[0]!.viewpoints;
    const { snapshotPng: _, ...withoutSnapshot } = perspective!;
    expect(read(perspective!)).toEqual(withoutSnapshot);
    expect(read(orthogonal!)).toEqual(orthogonal);
    expect(visinfoXml(perspective!)).toMatch(/<CameraViewPoint>\s*<X>10<\/X>\s*<Y>3<\/Y>\s*<Z>5<\/Z>/);
    expect(read({ guid: V2, clippingPlanes: [], lines: [] })).toEqual({ guid: V2, clippingPlanes: [], lines: [] });
  });

  it('writes the elements in the schema order, a negative zero as 0, and refuses what is not finite', () => {
    const vp = sampleProject().topics[0]!.viewpoints[0]!;
    const text = visinfoXml(vp);
    expect(text.indexOf('<PerspectiveCamera>')).toBeLessThan(text.indexOf('<Lines>'));
    expect(text.indexOf('<Lines>')).toBeLessThan(text.indexOf('<ClippingPlanes>'));
    expect(num(-0, 'x')).toBe('0');
    expect(() => num(Number.POSITIVE_INFINITY, 'the thing')).toThrow(new BcfExportError('BCF export: the thing is not a finite number (Infinity)'));
  });

  it('refuses a field of view outside 0..180 and a view scale that is not positive; no camera is none', () => {
    const cam = (inner: string) => parseXml(`<VisualizationInfo Guid="${V1}">${inner}</VisualizationInfo>`, 'v.bcfv');
    const vectors =
      '<CameraViewPoint><X>0</X><Y>0</Y><Z>0</Z></CameraViewPoint><CameraDirection><X>0</X><Y>1</Y><Z>0</Z></CameraDirection><CameraUpVector><X>0</X><Y>0</Y><Z>1</Z></CameraUpVector>';
    expect(() => readCamera(cam(`<PerspectiveCamera>${vectors}<FieldOfView>180</FieldOfView></PerspectiveCamera>`), 'v')).toThrow(
      'v, PerspectiveCamera: FieldOfView 180 is not between 0 and 180 degrees',
    );
    expect(() => readCamera(cam(`<OrthogonalCamera>${vectors}<ViewToWorldScale>0</ViewToWorldScale></OrthogonalCamera>`), 'v')).toThrow(
      'v, OrthogonalCamera: ViewToWorldScale 0 is not positive',
    );
    expect(readCamera(cam(`<PerspectiveCamera>${vectors}<FieldOfView>179</FieldOfView></PerspectiveCamera>`), 'v')).toEqual({
      kind: 'perspective',
      position: [0, 0, 0],
      direction: [0, 0, -1],
      up: [0, 1, 0],
      fieldOfView: 179,
    });
    expect(readCamera(cam(''), 'v')).toBeUndefined();
  });
});
