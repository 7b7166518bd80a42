/**
 * An init script for the profiler (bench/profile-load.ts): wraps WebGL calls in every frame to
 * time them on the page's main thread. With a software GPU the work of most calls is queued for
 * the GPU process and paid at the next call that must wait for an answer (a link status, an
 * error check, a parameter query, readPixels); both show here:
 * - every call of 2 ms or more, with its stack (mapped to the sources by the profiler);
 * - every program: when it was linked, from which material (three.js's SHADER_NAME and the
 *   defines that make its variant: lights, shadows, instancing, maps), and how long the first
 *   wait for its status took;
 * - per function: call count and total time.
 * Read back with `window.__glProbe`.
 */

export interface GlCall {
  fn: string;
  t: number;
  ms: number;
  stack: string;
  detail?: string;
}

export interface GlProgram {
  id: number;
  name: string;
  defines: string[];
  linkedAt: number;
  linkMs: number;
  /** The first call that waited for the program's status (LINK_STATUS or COMPLETION_STATUS_KHR). */
  statusAt?: number;
  statusMs?: number;
  statusFn?: string;
  stack: string;
}

/** In sync mode: one draw call or upload, timed until the GPU finished it. */
export interface GlWork {
  /** A GL function, or 'pass' (sync 'pass': the draws into one target between two waits). */
  fn: string;
  /** 'pass': the wait for the GPU at its end (the rest of `ms` is JavaScript issuing it). */
  wait?: number;
  /** 'pass': the framebuffer ('screen' or 'fb N'). */
  target?: string;
  t: number;
  ms: number;
  /** Program id (draws), viewport 'WxH', instances, element count. */
  program?: number;
  viewport?: string;
  instances?: number;
  count?: number;
  detail?: string;
}

export interface GlProbe {
  calls: GlCall[];
  programs: GlProgram[];
  totals: Record<string, { n: number; ms: number }>;
  contexts: { t: number; ms: number; attributes: string; stack: string }[];
  /** Sync modes only. */
  work: GlWork[];
  sync: boolean | 'pass';
}

/**
 * The probe. With `sync` true, every draw call, upload and link is followed by a call that waits
 * for the GPU (getError; getProgramParameter(LINK_STATUS) after a link), so that each one's GPU time
 * is its own: slower overall, but it says what each piece of GPU work costs (GlProbe.work, and
 * GlProgram.linkMs includes the wait). Each wait has a fixed cost (a round trip to the GPU process,
 * long on a busy machine), so with hundreds of draws `sync: 'pass'` is the better measure: it waits
 * only when the target framebuffer changes (one entry per render pass: a shadow map, a cube face,
 * the screen), around each link and around each upload.
 */
export function glProbe(sync: boolean | 'pass'): string {
  return GL_PROBE.replace('const SYNC = false;', `const SYNC = ${JSON.stringify(sync)};`);
}

export const GL_PROBE = `(() => {
  const SYNC = false;
  const probe = (window.__glProbe = { calls: [], programs: [], totals: {}, contexts: [], work: [], sync: SYNC });
  const now = () => performance.now();
  const stack = () => (new Error().stack || '').split('\\n').slice(2, 40).join('\\n');
  const sources = new WeakMap();
  const attached = new WeakMap();
  const programs = new WeakMap();
  let nextId = 1;
  const KEY_DEFINES = /^#define (SHADER_NAME|SHADER_TYPE|NUM_\\w+|USE_INSTANCING\\w*|USE_SHADOWMAP|SHADOWMAP_TYPE_\\w+|USE_MAP|USE_NORMALMAP\\w*|USE_ENVMAP|ENVMAP_TYPE_\\w+|ENVMAP_MODE_\\w+|CUBEUV_\\w+|USE_AOMAP|USE_EMISSIVEMAP|USE_METALNESSMAP|USE_ROUGHNESSMAP|TONE_MAPPING|USE_CLIPPING_PLANES|USE_TRANSMISSION|USE_COLOR\\w*|DOUBLE_SIDED|FLIP_SIDED|USE_SKINNING|USE_MORPH\\w*|PHYSICAL|STANDARD|DEPTH_PACKING|USE_FOG|LOD|SAMPLES|GLSL\\w*)\\b.*$/gm;
  const describe = (program) => {
    const shaders = attached.get(program) || [];
    let name = '';
    const defines = new Set();
    for (const s of shaders) {
      const src = sources.get(s) || '';
      const m = /#define SHADER_NAME (.+)/.exec(src);
      if (m && !name) name = m[1].trim();
      for (const d of src.match(KEY_DEFINES) || []) if (!d.startsWith('#define SHADER_NAME')) defines.add(d.slice(8).trim());
      if (!name) {
        const first = src.split('\\n').find((l) => l.trim() && !l.startsWith('#version') && !l.startsWith('precision')) || '';
        name = '(' + first.trim().slice(0, 60) + ')';
      }
    }
    return { name, defines: [...defines] };
  };
  const wrap = (proto, fn, after, before) => {
    const original = proto[fn];
    if (typeof original !== 'function') return;
    proto[fn] = function (...args) {
      if (before) before.call(this, args);
      const t = now();
      const result = original.apply(this, args);
      const ms = now() - t;
      const total = probe.totals[fn] || (probe.totals[fn] = { n: 0, ms: 0 });
      total.n++;
      total.ms += ms;
      if (after) after.call(this, args, result, t, ms);
      if (ms >= 2) {
        let detail;
        if (fn === 'getParameter' || fn === 'getProgramParameter' || fn === 'getShaderParameter') detail = String(args[args.length - 1]);
        if (fn === 'getExtension') detail = String(args[0]);
        if (fn === 'texImage2D' || fn === 'texSubImage2D' || fn === 'texImage3D' || fn === 'texStorage2D') detail = args.filter((a) => typeof a === 'number').join(',');
        probe.calls.push({ fn, t, ms, stack: stack(), detail });
      }
      return result;
    };
  };
  for (const proto of [WebGL2RenderingContext.prototype, WebGLRenderingContext.prototype]) {
    const getError = proto.getError;
    const getProgramParameter = proto.getProgramParameter;
    let viewport = '';
    let program = 0;
    let closeBeforeLink = null;
    const waitFor = function (gl, entry, t) {
      if (!SYNC) return;
      getError.call(gl);
      entry.ms = now() - t;
      probe.work.push(entry);
    };
    if (SYNC === 'pass') {
      const fbIds = new WeakMap();
      let nextFb = 1;
      let target = 'screen';
      let pass = null;
      const closePass = (gl) => {
        if (!pass) return;
        const w = now();
        getError.call(gl);
        const end = now();
        probe.work.push({ fn: 'pass', t: pass.t, ms: end - pass.t, wait: end - w, target: pass.target, viewport: pass.viewport, count: pass.draws, instances: pass.instances, detail: [...pass.programs].join(' ') + (pass.clears ? ' clear' : '') });
        pass = null;
      };
      const inPass = (gl) => {
        if (!pass) {
          pass = { t: now(), draws: 0, clears: 0, instances: 0, programs: new Set(), viewport, target };
          // A pass still open when the task ends (the frame's last one) is closed then.
          setTimeout(() => closePass(gl), 0);
        }
        pass.viewport = viewport;
        return pass;
      };
      wrap(proto, 'viewport', function (args) { viewport = args[2] + 'x' + args[3]; });
      wrap(proto, 'bindFramebuffer', function (args) {
        const fb = args[1];
        if (fb && !fbIds.has(fb)) fbIds.set(fb, nextFb++);
        target = fb ? 'fb ' + fbIds.get(fb) : 'screen';
      }, function (args) {
        // FRAMEBUFFER or DRAW_FRAMEBUFFER: the pass into the previous target ends here.
        if (args[0] === 0x8d40 || args[0] === 0x8ca9) closePass(this);
      });
      for (const fn of ['drawElements', 'drawArrays', 'drawElementsInstanced', 'drawArraysInstanced']) {
        wrap(proto, fn, function (args) {
          const p = inPass(this);
          p.draws++;
          p.instances += fn.endsWith('Instanced') ? args[args.length - 1] : 1;
          p.programs.add(program);
        });
      }
      wrap(proto, 'clear', function () { inPass(this).clears++; });
      for (const fn of ['texImage2D', 'texSubImage2D', 'texImage3D', 'texSubImage3D', 'compressedTexImage2D', 'compressedTexSubImage2D', 'generateMipmap', 'readPixels']) {
        wrap(proto, fn, function (args, result, t) {
          waitFor(this, { fn, t, ms: 0, viewport, detail: args.filter((a) => typeof a === 'number').join(',') }, t);
        }, function () { closePass(this); });
      }
      closeBeforeLink = closePass;
    }
    if (SYNC === true) {
      wrap(proto, 'viewport', function (args) { viewport = args[2] + 'x' + args[3]; });
      for (const fn of ['drawElements', 'drawArrays', 'drawElementsInstanced', 'drawArraysInstanced']) {
        wrap(proto, fn, function (args, result, t) {
          const instanced = fn.endsWith('Instanced');
          const count = fn.startsWith('drawElements') ? args[1] : args[2];
          waitFor(this, { fn, t, ms: 0, program, viewport, count, instances: instanced ? args[args.length - 1] : 1 }, t);
        });
      }
      for (const fn of ['clear', 'texImage2D', 'texSubImage2D', 'texImage3D', 'texSubImage3D', 'compressedTexImage2D', 'compressedTexSubImage2D', 'generateMipmap', 'blitFramebuffer', 'readPixels']) {
        wrap(proto, fn, function (args, result, t) {
          waitFor(this, { fn, t, ms: 0, viewport, detail: args.filter((a) => typeof a === 'number').join(',') }, t);
        });
      }
    }
    wrap(proto, 'useProgram', function (args) { program = (args[0] && programs.get(args[0]) ? programs.get(args[0]).id : 0); });
    wrap(proto, 'shaderSource', function (args) { sources.set(args[0], String(args[1])); });
    wrap(proto, 'attachShader', function (args) {
      const list = attached.get(args[0]) || [];
      list.push(args[1]);
      attached.set(args[0], list);
    });
    wrap(proto, 'linkProgram', function (args, result, t, ms) {
      const { name, defines } = describe(args[0]);
      if (SYNC) {
        getProgramParameter.call(this, args[0], 0x8b82);
        ms = now() - t;
      }
      const p = { id: nextId++, name, defines, linkedAt: t, linkMs: ms, stack: stack() };
      programs.set(args[0], p);
      probe.programs.push(p);
    }, function () {
      // sync 'pass': the draws before the link are their pass's, not the link's.
      if (closeBeforeLink) closeBeforeLink(this);
    });
    const status = function (args, result, t, ms) {
      const p = programs.get(args[0]);
      const pname = args[1];
      // LINK_STATUS 0x8B82, COMPLETION_STATUS_KHR 0x91B1
      if (p && p.statusAt === undefined && (pname === 0x8b82 || pname === 0x91b1)) {
        p.statusAt = t;
        p.statusMs = ms;
        p.statusFn = pname === 0x8b82 ? 'LINK_STATUS' : 'COMPLETION_STATUS_KHR';
      }
    };
    wrap(proto, 'getProgramParameter', status);
    for (const fn of ['getProgramInfoLog', 'getShaderParameter', 'getShaderInfoLog', 'getError', 'getParameter', 'getExtension',
      'getSupportedExtensions', 'readPixels', 'finish', 'flush', 'clientWaitSync', 'getSyncParameter', 'checkFramebufferStatus',
      'texImage2D', 'texSubImage2D', 'texImage3D', 'texSubImage3D', 'texStorage2D', 'texStorage3D', 'compressedTexImage2D',
      'compressedTexSubImage2D', 'generateMipmap', 'bufferData', 'bufferSubData', 'drawElements', 'drawArrays',
      'drawElementsInstanced', 'drawArraysInstanced', 'clear', 'compileShader', 'getUniformLocation',
      'getActiveUniform', 'getActiveAttrib', 'getAttribLocation', 'uniform1i', 'bindFramebuffer', 'renderbufferStorageMultisample',
      'blitFramebuffer', 'invalidateFramebuffer', 'framebufferTexture2D']) wrap(proto, fn);
  }
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (type, attributes) {
    const t = now();
    const result = getContext.call(this, type, attributes);
    const ms = now() - t;
    if (/webgl/.test(String(type))) {
      probe.contexts.push({ t, ms, attributes: type + ' ' + JSON.stringify(attributes || {}) + ' ' + this.width + 'x' + this.height, stack: stack() });
    }
    return result;
  };
})()`;
