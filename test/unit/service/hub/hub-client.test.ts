import { describe, expect, it } from 'vitest';
import { isPlainRepoPath } from '../../../../src-main/service/hub/hub-client';

describe('paths the hub lists', () => {
  it('offers only plain relative paths: nothing that could lead out of the models folder', () => {
    expect(isPlainRepoPath('onnx/model.onnx_data')).toBe(true);
    for (const bad of ['onnx/model.onnx_data/../../../x', '/etc/passwd', 'a//b', 'a\\b', './a', 'a\u0000b'])
      expect(isPlainRepoPath(bad)).toBe(false);
  });
});
