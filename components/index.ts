export { MAX_ENTITIES, NO_ENTITY } from './constants';
export { Transform } from './Transform';
export { Visibility } from './Visibility';
export { Shadows } from './Shadows';
export { ModelMember, Model, Renderable } from './ModelMember';
export { Animated, AnimationState } from './Animation';
export { Light, LightType } from './Light';
export { ShadowFollow } from './ShadowFollow';
export { WaterSurface } from './WaterSurface';
