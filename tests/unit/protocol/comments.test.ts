import { describe, expect, it } from 'vitest';
import {
  CommentList,
  CommentThread,
  CreateCommentRequest,
  UpdateCommentRequest,
  commentToAnnotation,
  hasCompleteAnchor,
  usableComments,
  type CommentView,
} from '../../../src/protocol/comments';

const view: CommentView = {
  projection: 'Perspective',
  position: [10, 5, 10],
  target: [0, 1, 0],
  up: [0, 1, 0],
  fov: 45,
  orthoHeight: 8,
  sections: [{ normal: [0, -1, 0], constant: 2 }],
  measurements: [{ kind: 'length', points: [[0, 0, 0], [1, 0, 0]] }],
};

function thread(id: string, anchor: Record<string, unknown>): Record<string, unknown> {
  return {
    _id: id,
    sceneId: 'scene-1',
    anchor: { _id: `a-${id}`, ...anchor },
    view,
    author: { _id: 'u1', firstName: 'Ada', lastName: 'Lovelace' },
    title: '',
    text: 'Look here',
    status: 'open',
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-01T10:00:00.000Z',
    replies: [],
  };
}

const full = { position: [1, 2, 3], target: [0, 0, 0], direction: [0, 0, -1] };

describe('comment anchors', () => {
  it('ignores comments whose anchor lacks position, target or direction', () => {
    const list = [
      thread('ok', full),
      thread('no-position', { target: full.target, direction: full.direction }),
      thread('no-target', { position: full.position, direction: full.direction }),
      thread('no-direction', { position: full.position, target: full.target }),
      thread('null-direction', { ...full, direction: null }),
      { ...thread('no-anchor', full), anchor: undefined },
      'not an object',
    ];
    const result = usableComments(list);
    expect(result.comments.map((c) => c._id)).toEqual(['ok']);
    expect(result.ignored).toBe(6);
    expect(result.invalid).toBe(0);
  });

  it('counts a complete anchor with a bad value as invalid and says why', () => {
    const result = usableComments([thread('bad', { ...full, position: [1, 'x', 3] }), thread('ok', full)]);
    expect(result.comments.map((c) => c._id)).toEqual(['ok']);
    expect(result.invalid).toBe(1);
    expect(result.firstError).toMatch(/anchor\.position/);
  });

  it('hasCompleteAnchor reads only the three fields', () => {
    expect(hasCompleteAnchor(thread('x', full))).toBe(true);
    expect(hasCompleteAnchor({ anchor: { position: [0, 0, 0], target: [0, 0, 0] } })).toBe(false);
    expect(hasCompleteAnchor(null)).toBe(false);
  });
});

describe('comment schemas', () => {
  it('accepts a stored thread and maps it to the host API annotation', () => {
    const parsed = CommentThread.parse(thread('t1', full));
    expect(commentToAnnotation(parsed)).toEqual({ id: 't1', title: '', text: 'Look here', position: [1, 2, 3], eye: [10, 5, 10], target: [0, 1, 0] });
  });

  it('checks create bodies with clear errors', () => {
    const ok = CreateCommentRequest.safeParse({ anchor: full, view, text: '  hi  ' });
    expect(ok.success && ok.data.text).toBe('hi');
    const empty = CreateCommentRequest.safeParse({ anchor: full, view, text: '   ' });
    expect(empty.success).toBe(false);
    expect(empty.error?.issues[0].message).toBe('text must not be empty');
    const extra = CreateCommentRequest.safeParse({ anchor: full, view, text: 'a', colour: 'red' });
    expect(extra.error?.issues[0].message).toBe("unknown field 'colour'");
    const badView = CreateCommentRequest.safeParse({ anchor: full, view: { ...view, fov: 200 }, text: 'a' });
    expect(badView.success).toBe(false);
  });

  it('checks updates', () => {
    expect(UpdateCommentRequest.safeParse({ status: 'resolved' }).success).toBe(true);
    expect(UpdateCommentRequest.safeParse({ status: 'closed' }).error?.issues[0].message).toBe("status must be 'open' or 'resolved'");
  });

  it('lists with the asking user\'s rights', () => {
    expect(CommentList.safeParse({ comments: [], commentsEnabled: true, mayComment: false, mayModerate: false }).success).toBe(true);
  });
});
