import { DOMParser, type Element as XmlDomElement } from '@xmldom/xmldom';

/**
 * Our own conformance check of BCF 2.1 XML files, written from reading buildingSMART's published
 * schemas (BCF-XML, release_2_1, Schemas/{markup,visinfo,version,project}.xsd). The official XSD
 * files cannot be in this repository (another project's text) and CI reaches no host that serves
 * them, so this is what the tests validate against; `tests/unit/protocol/bcf-xsd.test.ts` also
 * validates with xmllint against the official files whenever they are on the machine
 * (BCF_XSD_DIR).
 *
 * What it checks, as an XSD 1.0 validator would for these schemas: each element's children in
 * the order and number its xs:sequence allows (no element outside it), required and declared
 * attributes only, and the simple types (xs:double, xs:int, xs:dateTime, xs:boolean, the Guid and
 * IfcGuid patterns, FieldOfView 45..60, the Color pattern, the PNG/JPG enumeration).
 */

type Simple = 'string' | 'double' | 'int' | 'dateTime' | 'boolean' | 'guid' | 'ifcGuid' | 'fov' | 'color' | 'bitmapFormat' | 'anyURI';

interface Particle {
  name: string;
  type: Complex | Simple;
  min?: number; // default 1
  max?: number; // default 1; Infinity for unbounded
}

interface Complex {
  sequence: Particle[];
  attributes?: Record<string, { type: Simple; required?: boolean }>;
}

const U = Infinity;
const point: Complex = { sequence: [{ name: 'X', type: 'double' }, { name: 'Y', type: 'double' }, { name: 'Z', type: 'double' }] };
const guidAttr = { Guid: { type: 'guid' as const, required: true } };

// ---- version.xsd / project.xsd ----
const version: Complex = { sequence: [{ name: 'DetailedVersion', type: 'string', min: 0 }], attributes: { VersionId: { type: 'string' } } };
const projectExtension: Complex = {
  sequence: [
    { name: 'Project', type: { sequence: [{ name: 'Name', type: 'string', min: 0 }], attributes: { ProjectId: { type: 'string', required: true } } }, min: 0 },
    { name: 'ExtensionSchema', type: 'anyURI' },
  ],
};

// ---- markup.xsd ----
const header: Complex = {
  sequence: [
    {
      name: 'File',
      max: U,
      type: {
        sequence: [
          { name: 'Filename', type: 'string', min: 0 },
          { name: 'Date', type: 'dateTime', min: 0 },
          { name: 'Reference', type: 'string', min: 0 },
        ],
        attributes: { IfcProject: { type: 'ifcGuid' }, IfcSpatialStructureElement: { type: 'ifcGuid' }, isExternal: { type: 'boolean' } },
      },
    },
  ],
};
const topic: Complex = {
  sequence: [
    { name: 'ReferenceLink', type: 'string', min: 0, max: U },
    { name: 'Title', type: 'string' },
    { name: 'Priority', type: 'string', min: 0 },
    { name: 'Index', type: 'int', min: 0 },
    { name: 'Labels', type: 'string', min: 0, max: U },
    { name: 'CreationDate', type: 'dateTime' },
    { name: 'CreationAuthor', type: 'string' },
    { name: 'ModifiedDate', type: 'dateTime', min: 0 },
    { name: 'ModifiedAuthor', type: 'string', min: 0 },
    { name: 'DueDate', type: 'dateTime', min: 0 },
    { name: 'AssignedTo', type: 'string', min: 0 },
    { name: 'Stage', type: 'string', min: 0 },
    { name: 'Description', type: 'string', min: 0 },
    {
      name: 'BimSnippet',
      min: 0,
      type: {
        sequence: [{ name: 'Reference', type: 'string' }, { name: 'ReferenceSchema', type: 'string' }],
        attributes: { SnippetType: { type: 'string', required: true }, isExternal: { type: 'boolean' } },
      },
    },
    {
      name: 'DocumentReference',
      min: 0,
      max: U,
      type: {
        sequence: [{ name: 'ReferencedDocument', type: 'string', min: 0 }, { name: 'Description', type: 'string', min: 0 }],
        attributes: { Guid: { type: 'guid' }, isExternal: { type: 'boolean' } },
      },
    },
    { name: 'RelatedTopic', min: 0, max: U, type: { sequence: [], attributes: guidAttr } },
  ],
  attributes: { ...guidAttr, TopicType: { type: 'string' }, TopicStatus: { type: 'string' } },
};
const comment: Complex = {
  sequence: [
    { name: 'Date', type: 'dateTime' },
    { name: 'Author', type: 'string' },
    { name: 'Comment', type: 'string' },
    { name: 'Viewpoint', type: { sequence: [], attributes: guidAttr }, min: 0 },
    { name: 'ModifiedDate', type: 'dateTime', min: 0 },
    { name: 'ModifiedAuthor', type: 'string', min: 0 },
  ],
  attributes: guidAttr,
};
const markupViewpoint: Complex = {
  sequence: [
    { name: 'Viewpoint', type: 'string', min: 0 },
    { name: 'Snapshot', type: 'string', min: 0 },
    { name: 'Index', type: 'int', min: 0 },
  ],
  attributes: guidAttr,
};
const markup: Complex = {
  sequence: [
    { name: 'Header', type: header, min: 0 },
    { name: 'Topic', type: topic },
    { name: 'Comment', type: comment, min: 0, max: U },
    { name: 'Viewpoints', type: markupViewpoint, min: 0, max: U },
  ],
};

// ---- visinfo.xsd ----
const componentT: Complex = {
  sequence: [{ name: 'OriginatingSystem', type: 'string', min: 0 }, { name: 'AuthoringToolId', type: 'string', min: 0 }],
  attributes: { IfcGuid: { type: 'ifcGuid' } },
};
const components: Complex = {
  sequence: [
    { name: 'ViewSetupHints', min: 0, type: { sequence: [], attributes: { SpacesVisible: { type: 'boolean' }, SpaceBoundariesVisible: { type: 'boolean' }, OpeningsVisible: { type: 'boolean' } } } },
    { name: 'Selection', min: 0, type: { sequence: [{ name: 'Component', type: componentT, max: U }] } },
    {
      name: 'Visibility',
      type: {
        sequence: [{ name: 'Exceptions', min: 0, type: { sequence: [{ name: 'Component', type: componentT, max: U }] } }],
        attributes: { DefaultVisibility: { type: 'boolean' } },
      },
    },
    {
      name: 'Coloring',
      min: 0,
      type: { sequence: [{ name: 'Color', max: U, type: { sequence: [{ name: 'Component', type: componentT, max: U }], attributes: { Color: { type: 'color' } } } }] },
    },
  ],
};
const cameraHead: Particle[] = [
  { name: 'CameraViewPoint', type: point },
  { name: 'CameraDirection', type: point },
  { name: 'CameraUpVector', type: point },
];
const visualizationInfo: Complex = {
  sequence: [
    { name: 'Components', type: components, min: 0 },
    { name: 'OrthogonalCamera', min: 0, type: { sequence: [...cameraHead, { name: 'ViewToWorldScale', type: 'double' }] } },
    { name: 'PerspectiveCamera', min: 0, type: { sequence: [...cameraHead, { name: 'FieldOfView', type: 'fov' }] } },
    { name: 'Lines', min: 0, type: { sequence: [{ name: 'Line', max: U, type: { sequence: [{ name: 'StartPoint', type: point }, { name: 'EndPoint', type: point }] } }] } },
    { name: 'ClippingPlanes', min: 0, type: { sequence: [{ name: 'ClippingPlane', min: 0, max: U, type: { sequence: [{ name: 'Location', type: point }, { name: 'Direction', type: point }] } }] } },
    {
      name: 'Bitmap',
      min: 0,
      max: U,
      type: {
        sequence: [
          { name: 'Bitmap', type: 'bitmapFormat' },
          { name: 'Reference', type: 'string' },
          { name: 'Location', type: point },
          { name: 'Normal', type: point },
          { name: 'Up', type: point },
          { name: 'Height', type: 'double' },
        ],
      },
    },
  ],
  attributes: guidAttr,
};

export const BCF21_ROOTS = {
  'version.xsd': { root: 'Version', type: version },
  'project.xsd': { root: 'ProjectExtension', type: projectExtension },
  'markup.xsd': { root: 'Markup', type: markup },
  'visinfo.xsd': { root: 'VisualizationInfo', type: visualizationInfo },
} as const;
export type Bcf21Schema = keyof typeof BCF21_ROOTS;

const DOUBLE = /^[+-]?((\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|INF)$|^-INF$|^NaN$/;
const SIMPLE: Record<Simple, (v: string) => boolean> = {
  string: () => true,
  anyURI: (v) => !/[\s<>"{}|\\^`]/.test(v.trim()),
  double: (v) => DOUBLE.test(v.trim()),
  int: (v) => /^[+-]?\d+$/.test(v.trim()) && Number(v) >= -2147483648 && Number(v) <= 2147483647,
  dateTime: (v) => /^-?\d{4,}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-](0\d|1[0-4]):[0-5]\d)?$/.test(v.trim()),
  boolean: (v) => /^(true|false|1|0)$/.test(v.trim()),
  // Patterns are not white-space collapsed for xs:string: the whole value must match.
  guid: (v) => /^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$/.test(v),
  ifcGuid: (v) => /^[0-9,A-Za-z_$]{22}$/.test(v),
  fov: (v) => DOUBLE.test(v.trim()) && Number(v) >= 45 && Number(v) <= 60,
  color: (v) => /^[0-9,A-F]{6}([0-9,A-F]{2})?$/.test(v.trim()),
  bitmapFormat: (v) => v.trim() === 'PNG' || v.trim() === 'JPG',
};

function elementChildren(node: XmlDomElement): XmlDomElement[] {
  const out: XmlDomElement[] = [];
  for (let n = node.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) out.push(n as XmlDomElement);
  return out;
}

function hasText(node: XmlDomElement): boolean {
  for (let n = node.firstChild; n; n = n.nextSibling) if ((n.nodeType === 3 || n.nodeType === 4) && (n.nodeValue ?? '').trim() !== '') return true;
  return false;
}

function checkAttributes(node: XmlDomElement, type: Complex, path: string, errors: string[]): void {
  const declared = type.attributes ?? {};
  for (let i = 0; i < node.attributes.length; i++) {
    const a = node.attributes.item(i)!;
    if (a.name === 'xmlns' || a.name.startsWith('xmlns:') || a.namespaceURI === 'http://www.w3.org/2001/XMLSchema-instance') continue;
    const decl = declared[a.name];
    if (!decl) errors.push(`${path}: attribute ${a.name} is not allowed`);
    else if (!SIMPLE[decl.type](a.value)) errors.push(`${path}: attribute ${a.name}="${a.value}" is not a valid ${decl.type}`);
  }
  for (const [name, decl] of Object.entries(declared)) {
    if (decl.required && !node.hasAttribute(name)) errors.push(`${path}: attribute ${name} is required`);
  }
}

function checkElement(node: XmlDomElement, type: Complex | Simple, path: string, errors: string[]): void {
  if (typeof type === 'string') {
    if (elementChildren(node).length > 0) errors.push(`${path}: a ${type} holds no elements`);
    if (node.attributes.length > 0) errors.push(`${path}: a ${type} element has no attributes`);
    const value = node.textContent ?? '';
    if (!SIMPLE[type](value)) errors.push(`${path}: "${value}" is not a valid ${type}`);
    return;
  }
  checkAttributes(node, type, path, errors);
  if (hasText(node)) errors.push(`${path}: text is not allowed here`);
  const kids = elementChildren(node);
  let k = 0;
  for (const particle of type.sequence) {
    const min = particle.min ?? 1;
    const max = particle.max ?? 1;
    let count = 0;
    while (k < kids.length && kids[k]!.localName === particle.name && count < max) {
      checkElement(kids[k]!, particle.type, `${path}/${particle.name}`, errors);
      k++;
      count++;
    }
    if (count < min) errors.push(`${path}: ${particle.name} is required${k < kids.length ? ` (found ${kids[k]!.localName})` : ''}`);
  }
  if (k < kids.length) errors.push(`${path}: element ${kids[k]!.localName} is not allowed here`);
}

/** The conformance errors of one XML document against one of the BCF 2.1 schemas (empty when it conforms). */
export function checkBcf21(xml: string, schema: Bcf21Schema): string[] {
  const errors: string[] = [];
  let doc;
  try {
    doc = new DOMParser({
      onError(level, message) {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml');
  } catch (error) {
    return [`not well-formed: ${(error as Error).message}`];
  }
  const root = doc.documentElement;
  const { root: name, type } = BCF21_ROOTS[schema];
  if (!root || root.localName !== name) return [`the root element must be ${name}, not ${root?.localName}`];
  if (root.namespaceURI) errors.push(`${name}: the schema has no target namespace, the element is in ${root.namespaceURI}`);
  checkElement(root, type, name, errors);
  return errors;
}
