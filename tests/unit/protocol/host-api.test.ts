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
} from '../../../src/protocol/host-api';
import { SceneDoc } from '../../../src/protocol/scene';
import { UpdateSceneRequest } from '../../../src/protocol/scene-api';

const argsError = (func: keyof typeof HOST_FUNCTIONS, args: unknown) => {
  const result = HOST_FUNCTIONS[func].args.safeParse(args);
  return result.success ? null : describeArgumentsError(result.error);
};

describe('host API schemas', () => {
  it('lists every function the issue asks for, each documented', () => {
    for (const name of [
      'listModels', 'setModelVisibility', 'fitCamera', 'getCamera', 'setCamera', 'setCameraConfig', 'setNavigationMode', 'setProjection',
      'getObjectByName', 'getNodeTree', 'setObjectTranslation', 'setObjectRotation', 'setObjectScale', 'setObjectVisibility', 'highlightObject',
      'getMaterial', 'setMaterial', 'listMaterials', 'addTexture', 'getPostProcessing', 'setPostProcessing', 'setQuality',
      'setSceneSettings', 'setSun', 'setFog', 'setShadowPlane', 'setWater', 'setBackground', 'setEnvironment',
      'listAnimations', 'playAnimation', 'pauseAnimation', 'stopAnimation', 'setAnimationSpeed', 'seekAnimation',
      'activateTool', 'listMeasurements', 'listSectionPlanes', 'pickFromScreen', 'getWorldToScreenCoordinates', 'renderOffscreenFrame', 'screenshot',
      'createAnnotation', 'listAnnotations', 'updateAnnotation', 'removeAnnotation', 'gotoAnnotation', 'registerHotspots',
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

  it('decides access: own origin all; absent list read; "*" or listed all; else none', () => {
    const self = 'https://viewer.example';
    expect(accessFor(undefined, self, self)).toBe('all');
    expect(accessFor([], self, self)).toBe('all');
    expect(accessFor(undefined, 'https://a.example', self)).toBe('read');
    expect(accessFor(['*'], 'https://a.example', self)).toBe('all');
    expect(accessFor(['https://a.example'], 'https://a.example', self)).toBe('all');
    expect(accessFor(['https://a.example'], 'https://b.example', self)).toBe('none');
    expect(accessFor([], 'https://a.example', self)).toBe('none');
    expect(accessFor(undefined, 'null', 'null')).toBe('read');
  });

  it('is part of the scene document and of the scene PATCH (null removes it)', () => {
    expect(SceneDoc.parse({ _id: 's', name: 'n', models: [], hostOrigins: ['https://a.example'] }).hostOrigins).toEqual(['https://a.example']);
    expect(UpdateSceneRequest.parse({ hostOrigins: null })).toEqual({ hostOrigins: null });
    expect(UpdateSceneRequest.safeParse({ hostOrigins: ['https://a.example/x'] }).success).toBe(false);
  });
});
