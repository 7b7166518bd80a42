import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  accessFor,
  describeArgumentsError,
  HOST_EVENTS,
  HOST_FUNCTION_NAMES,
  HOST_FUNCTIONS,
  HostOrigins,
  isHostFunction,
  MAX_MEASUREMENT_POINTS,
} from '../../../src/protocol/host-api';
import { SceneDoc } from '../../../src/protocol/scene';
import { UpdateSceneRequest } from '../../../src/protocol/scene-api';

const argsError = (func: keyof typeof HOST_FUNCTIONS, args: unknown) => {
  const result = HOST_FUNCTIONS[func].args.safeParse(args);
  return result.success ? null : describeArgumentsError(result.error);
};

describe('host API schemas', () => {
  it("gives every function's and event's schemas as getters that build them once", () => {
    for (const name of HOST_FUNCTION_NAMES) {
      const spec = HOST_FUNCTIONS[name];
      expect(typeof Object.getOwnPropertyDescriptor(spec, 'args')?.get, name).toBe('function');
      expect(typeof Object.getOwnPropertyDescriptor(spec, 'result')?.get, name).toBe('function');
      expect(spec.args, name).toBe(spec.args);
      expect(spec.result, name).toBe(spec.result);
    }
    for (const [name, event] of Object.entries(HOST_EVENTS)) {
      expect(typeof Object.getOwnPropertyDescriptor(event, 'data')?.get, name).toBe('function');
      expect(event.data, name).toBe(event.data);
    }
    expect(HOST_EVENTS.camerastop.data.safeParse({}).success).toBe(false);
  });

  it('lists every function the issue asks for, each documented', () => {
    for (const name of [
      'listModels', 'setModelVisibility', 'fitCamera', 'getCamera', 'setCamera', 'setCameraConfig', 'setNavigationMode', 'setProjection',
      'getObjectByName', 'getNodeTree', 'setObjectTranslation', 'setObjectRotation', 'setObjectScale', 'setObjectVisibility', 'highlightObject',
      'getMaterial', 'setMaterial', 'listMaterials', 'addTexture', 'getPostProcessing', 'setPostProcessing', 'setQuality',
      'setSceneSettings', 'setSun', 'setFog', 'setShadowPlane', 'setWater', 'setBackground', 'setEnvironment',
      'listAnimations', 'playAnimation', 'pauseAnimation', 'stopAnimation', 'setAnimationSpeed', 'seekAnimation',
      'activateTool', 'listMeasurements', 'listSectionPlanes', 'pickFromScreen', 'getWorldToScreenCoordinates', 'renderOffscreenFrame', 'screenshot',
      'createAnnotation', 'listAnnotations', 'updateAnnotation', 'removeAnnotation', 'gotoAnnotation', 'registerHotspots',
      'listTextures', 'updateTexture', 'removeTexture', 'getAnnotation', 'createMeasurement', 'updateMeasurement', 'removeMeasurement',
      'createSectionPlane', 'moveSectionPlane', 'removeSectionPlane',
    ]) {
      expect(HOST_FUNCTION_NAMES).toContain(name);
    }
    for (const name of HOST_FUNCTION_NAMES) {
      expect(HOST_FUNCTIONS[name].summary.length, name).toBeGreaterThan(5);
      expect(['read', 'change']).toContain(HOST_FUNCTIONS[name].access);
    }
    for (const event of ['annotation.click', 'raycast', 'animation', 'camerastart', 'camerastop', 'loadprogress', 'selection', 'measurement', 'section', 'hotspots']) {
      expect(Object.keys(HOST_EVENTS)).toContain(event);
    }
  });

  it('marks every function that changes something as change', () => {
    const reads = HOST_FUNCTION_NAMES.filter((n) => HOST_FUNCTIONS[n].access === 'read');
    for (const name of reads) expect(name, name).toMatch(/^(get|list|pick|screenshot|renderOffscreenFrame)/);
  });

  it('names the argument at fault', () => {
    expect(argsError('setObjectRotation', { modelId: 'm', nodeId: 'n', rotation: [0, 90] })).toMatch(/^arguments\.rotation: rotation must be \[x, y, z\]/);
    expect(argsError('setCamera', { fov: 200 })).toBe('arguments.fov: fov must be between 0 and 180 degrees');
    expect(argsError('renderOffscreenFrame', { width: 0, height: 10 })).toBe('arguments.width: width must be at least 1');
    expect(argsError('renderOffscreenFrame', { width: 100, height: 100, fitPaddingFactor: 0.5 })).toBe('arguments.fitPaddingFactor: fitPaddingFactor must be between 1 and 10');
    expect(argsError('renderOffscreenFrame', { width: 10.5, height: 10 })).toBe('arguments.width: width must be a whole number of pixels');
    expect(argsError('addTexture', { url: 'javascript:alert(1)' })).toBe('arguments.url: url must be an http(s) URL');
    expect(argsError('setMaterial', { modelId: 'm', materialId: 'x', properties: { opacity: 'high' } })).toMatch(/^arguments\.properties\.opacity: opacity must be a number/);
    expect(argsError('activateTool', { tool: 'hammer' })).toMatch(/tool must be one of section-tool/);
    expect(argsError('getObjectByName', { name: 'x'.repeat(20_000) })).toBe('arguments.name: name must be at most 10000 characters');
    expect(argsError('listModels', { a: 1 })).toBe("arguments: unknown argument 'a'");
    // A page's huge key is quoted clipped.
    expect(argsError('listModels', { ['k'.repeat(100_000)]: 1 })).toBe(`arguments: unknown argument '${'k'.repeat(60)}…'`);
    expect(argsError('setSun', { sunElevation: 120 })).toMatch(/^arguments\.sunElevation: /);
  });

  it('names the argument at fault in the texture, measurement, section plane and post-processing functions', () => {
    expect(argsError('updateTexture', { textureId: 'api-texture-1', url: 'file:///etc/passwd' })).toBe('arguments.url: url must be an http(s) URL');
    expect(argsError('updateTexture', { url: 'https://a.example/x.png' })).toBe('arguments.textureId: textureId undefined.');
    expect(argsError('removeTexture', { textureId: 7 })).toBe('arguments.textureId: textureId must be a string');
    expect(argsError('listTextures', { modelId: '' })).toBe('arguments.modelId: modelId must not be empty');
    expect(argsError('getAnnotation', {})).toBe('arguments.id: id undefined.');
    expect(argsError('createMeasurement', { kind: 'volume', points: [] })).toMatch(/^arguments\.kind: kind must be one of length, area, angle/);
    expect(argsError('createMeasurement', { kind: 'length', points: [[0, 0, 0], [1, Infinity, 0]] })).toBe('arguments.points[1][1]: point[1] must be a number');
    expect(argsError('createMeasurement', { kind: 'length', points: [[0, 0, 0]] })).toBe('arguments.points: a length measurement needs 2 points, got 1');
    expect(argsError('createMeasurement', { kind: 'length', points: [[1, 2, 3], [1, 2, 3]] })).toBe('arguments.points[1]: the two points of a length must differ');
    expect(argsError('createMeasurement', { kind: 'angle', points: [[0, 0, 0], [1, 0, 0], [1, 0, 0]] })).toMatch(/^arguments\.points\[1\]: an angle's vertex/);
    expect(argsError('createMeasurement', { kind: 'area', points: [[0, 0, 0], [1, 0, 0], [2, 0, 0]] })).toMatch(/^arguments\.points\[2\]: an area's first three points must not lie on one line/);
    expect(argsError('createMeasurement', { kind: 'area', points: [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0.5]] })).toMatch(/^arguments\.points\[3\]: point 3 is 0\.500 off the plane/);
    expect(argsError('createMeasurement', { kind: 'area', points: Array.from({ length: MAX_MEASUREMENT_POINTS + 1 }, (_, i) => [i, 0, 0]) })).toBe(`arguments.points: points: at most ${MAX_MEASUREMENT_POINTS}`);
    expect(argsError('updateMeasurement', { id: 1.5, points: [] })).toMatch(/^arguments\.id: id must be a measurement id/);
    expect(argsError('removeMeasurement', { id: '3' })).toMatch(/^arguments\.id: id must be a measurement id/);
    expect(argsError('createSectionPlane', { point: [0, 0, 0], normal: [0, 0, 0] })).toMatch(/^arguments\.normal: normal must not be \[0, 0, 0\]/);
    expect(argsError('createSectionPlane', { point: [0, 0], normal: [0, 1, 0] })).toMatch(/^arguments\.point: point must be \[x, y, z\]/);
    expect(argsError('moveSectionPlane', { id: 4 })).toBe('arguments: give point, normal or both');
    expect(argsError('removeSectionPlane', { id: -1 })).toMatch(/^arguments\.id: id must be a section plane id/);
    expect(argsError('setPostProcessing', { config: { bloom: { intensity: 200 } } })).toMatch(/^arguments\.config\.bloom\.intensity: Too big/);
    expect(argsError('setPostProcessing', { config: { bloom: { glow: 1 } } })).toMatch(/^arguments\.config\.bloom: Unrecognized key: "glow"/);
    expect(argsError('setPostProcessing', { config: 'on' })).toMatch(/^arguments\.config: /);
    // A key of the prototype's name is an unknown key, like any other.
    expect(argsError('setPostProcessing', { config: JSON.parse('{"__proto__": {"enabled": true}}') })).toMatch(/^arguments\.config: Unrecognized key: "__proto__"/);
  });

  it('accepts valid arguments and normalises them as the viewer needs', () => {
    expect(HOST_FUNCTIONS.setSceneSettings.args.parse({ settings: { fogColor: '#ABC', initialCameraPosition: [1, 2, 3] } }).settings).toEqual({
      fogColor: 'aabbcc',
      initialCameraPosition: { x: 1, y: 2, z: 3 },
    });
    expect(HOST_FUNCTIONS.highlightObject.args.parse({ nodeId: null })).toEqual({ nodeId: null });
    expect(HOST_FUNCTIONS.renderOffscreenFrame.args.parse({ width: 1920, height: 1080, fit: true, transparent: true, format: 'png' })).toMatchObject({ width: 1920 });
  });

  it('has a JSON Schema for every argument and result (the reference is generated from them)', () => {
    for (const name of HOST_FUNCTION_NAMES) {
      expect(() => z.toJSONSchema(HOST_FUNCTIONS[name].args, { io: 'input', unrepresentable: 'any' }), name).not.toThrow();
      expect(() => z.toJSONSchema(HOST_FUNCTIONS[name].result, { io: 'output', unrepresentable: 'any' }), name).not.toThrow();
    }
  });

  it('knows its functions without the prototype chain', () => {
    expect(isHostFunction('getCamera')).toBe(true);
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '']) expect(isHostFunction(name)).toBe(false);
  });
});

describe('host origins', () => {
  it('accepts origins and "*", refuses paths, other schemes and trailing slashes', () => {
    expect(HostOrigins.parse(['*', 'https://example.com', 'http://localhost:8080'])).toHaveLength(3);
    for (const bad of ['https://example.com/', 'https://example.com/page', 'ftp://example.com', 'example.com', '', 'null']) {
      expect(HostOrigins.safeParse([bad]).success, bad).toBe(false);
    }
    expect(HostOrigins.safeParse(Array(51).fill('*')).success).toBe(false);
  });

  it('decides access: own origin all; absent or empty list read; "*" or listed all; else none', () => {
    const self = 'https://viewer.example';
    expect(accessFor(undefined, self, self)).toBe('all');
    expect(accessFor([], self, self)).toBe('all');
    expect(accessFor(undefined, 'https://a.example', self)).toBe('read');
    expect(accessFor(['*'], 'https://a.example', self)).toBe('all');
    expect(accessFor(['https://a.example'], 'https://a.example', self)).toBe('all');
    expect(accessFor(['https://a.example'], 'https://b.example', self)).toBe('none');
    // An empty list is the open default, as no list (issue 33 item 6).
    expect(accessFor([], 'https://a.example', self)).toBe('read');
    expect(accessFor([], 'null', self)).toBe('read');
    expect(accessFor(undefined, 'null', 'null')).toBe('read');
  });

  it('is part of the scene document and of the scene PATCH (null removes it)', () => {
    expect(SceneDoc.parse({ _id: 's', name: 'n', models: [], hostOrigins: ['https://a.example'] }).hostOrigins).toEqual(['https://a.example']);
    expect(UpdateSceneRequest.parse({ hostOrigins: null })).toEqual({ hostOrigins: null });
    expect(UpdateSceneRequest.safeParse({ hostOrigins: ['https://a.example/x'] }).success).toBe(false);
  });
});
