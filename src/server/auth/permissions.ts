import type { FastifyRequest } from 'fastify';
import type { SceneDoc } from '../../protocol/scene.ts';
import type { AuthUser } from './tokens.ts';

/**
 * Who may do what (issue 3, "Permissions"): anyone may read a public scene (a scene is public
 * unless `public: false`); a private one only its owner and editors. Only the owner and editors
 * may change a scene or save mutations of its models; only the owner may change who they are.
 * A model's rights are those of the scenes that list it; a model no scene lists can be read by
 * anyone and changed by no one.
 */

/** 401 (no valid token) or 403 (signed in, not allowed); the error handler answers `{ error }`. */
export class AuthError extends Error {
  readonly statusCode: 401 | 403;
  constructor(statusCode: 401 | 403, message: string) {
    super(message);
    this.name = 'AuthError';
    this.statusCode = statusCode;
  }
}

export const SIGN_IN_REQUIRED = 'Sign in required: send a bearer token (Authorization: Bearer <token>)';

/** The signed-in user, or a 401. */
export function requireUser(request: FastifyRequest): AuthUser {
  if (!request.user) throw new AuthError(401, SIGN_IN_REQUIRED);
  return request.user;
}

export function isOwner(user: AuthUser | null, scene: SceneDoc): boolean {
  return user !== null && scene.ownerId !== undefined && scene.ownerId === user.id;
}

export function canWriteScene(user: AuthUser | null, scene: SceneDoc): boolean {
  return user !== null && (isOwner(user, scene) || (scene.editors ?? []).includes(user.id));
}

export function canReadScene(user: AuthUser | null, scene: SceneDoc): boolean {
  return scene.public !== false || canWriteScene(user, scene);
}

/** Throws 401/403 unless the request's user may read the scene. */
export function assertCanReadScene(request: FastifyRequest, scene: SceneDoc): void {
  if (canReadScene(request.user, scene)) return;
  if (!request.user) throw new AuthError(401, `${SIGN_IN_REQUIRED}: scene '${scene._id}' is private`);
  throw new AuthError(403, `You may not read scene '${scene._id}': it is private and you are not its owner or an editor`);
}

/** Throws 401/403 unless the request's user may change the scene. */
export function assertCanWriteScene(request: FastifyRequest, scene: SceneDoc): AuthUser {
  const user = requireUser(request);
  if (!canWriteScene(user, scene)) throw new AuthError(403, `You may not change scene '${scene._id}': only its owner and editors may`);
  return user;
}

/** Throws 401/403 unless the request's user may read the model (through one of its scenes). */
export function assertCanReadModel(request: FastifyRequest, modelId: string, scenes: SceneDoc[]): void {
  if (scenes.length === 0 || scenes.some((scene) => canReadScene(request.user, scene))) return;
  if (!request.user) throw new AuthError(401, `${SIGN_IN_REQUIRED}: model '${modelId}' belongs to a private scene`);
  throw new AuthError(403, `You may not read model '${modelId}': its scenes are private and you are not an owner or editor`);
}

/** Throws 401/403 unless the request's user may change the model (owner or editor of one of its scenes). */
export function assertCanWriteModel(request: FastifyRequest, modelId: string, scenes: SceneDoc[]): AuthUser {
  const user = requireUser(request);
  if (!scenes.some((scene) => canWriteScene(user, scene))) {
    throw new AuthError(403, `You may not change model '${modelId}': only the owner and editors of a scene that lists it may`);
  }
  return user;
}
