// Ollama's store: `manifests/<host>/<namespace>/<model>/<tag>` (an OCI image manifest as JSON)
// names the layers of a model; each layer is a file `blobs/sha256-<hex>`. The model layer is
// the GGUF itself; the template, parameters and system layers are small texts beside it.

import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { DefaultSampling } from '../genai/genai-config';
import { entriesOf } from './dir-entries';
import type { FoundModel, SourceFacts } from './found-model';

const MEDIA = 'application/vnd.ollama.image.';
const MAX_MANIFEST_BYTES = 1 << 20;
const MAX_LAYER_TEXT_BYTES = 256 * 1024;
const DIGEST = /^sha256[:-]([0-9a-f]{64})$/;

const ManifestSchema = z.object({
  layers: z
    .array(z.object({ mediaType: z.string(), digest: z.string(), size: z.number().optional() }).loose())
    .max(1000),
});
type Layer = z.infer<typeof ManifestSchema>['layers'][number];

/** What the parameters layer may set that is sampling (Ollama's Modelfile PARAMETER names). */
const ParamsSchema = z
  .object({
    temperature: z.number(),
    top_k: z.number().int(),
    top_p: z.number(),
    repeat_penalty: z.number(),
  })
  .partial()
  .loose();

/** Every model of the Ollama store at `root`, each by its Ollama name (`llama3.2:3b`). */
export async function ollamaModels(root: string): Promise<FoundModel[]> {
  const found: FoundModel[] = [];
  for (const host of await entriesOf(path.join(root, 'manifests'))) {
    if (!host.isDir) continue;
    for (const namespace of await entriesOf(host.path)) {
      if (!namespace.isDir) continue;
      for (const model of await entriesOf(namespace.path)) {
        if (!model.isDir) continue;
        for (const tag of await entriesOf(model.path))
          if (tag.isFile)
            found.push(
              await readManifest(root, tag.path, ollamaName(host.name, namespace.name, model.name, tag.name)),
            );
      }
    }
  }
  return found;
}

/** The name Ollama shows: `model:tag` for its own library, `namespace/model:tag`, or with the host. */
export function ollamaName(host: string, namespace: string, model: string, tag: string): string {
  if (host !== 'registry.ollama.ai') return `${host}/${namespace}/${model}:${tag}`;
  return namespace === 'library' ? `${model}:${tag}` : `${namespace}/${model}:${tag}`;
}

async function readManifest(root: string, file: string, name: string): Promise<FoundModel> {
  const base = { source: 'ollama' as const, name, kind: 'gguf' as const, facts: null };
  const broken = (problem: string): FoundModel => ({ ...base, path: file, label: 'manifest', problem });
  let layers: Layer[];
  try {
    const info = await stat(file);
    if (info.size > MAX_MANIFEST_BYTES)
      return broken(`is ${info.size} bytes, over the 1 MiB a manifest may take`);
    const parsed = ManifestSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (!parsed.success) return broken('is not an Ollama manifest (no list of layers)');
    layers = parsed.data.layers;
  } catch (error) {
    return broken(error instanceof SyntaxError ? 'is not JSON' : `cannot be read (${codeOf(error)})`);
  }
  const unsupported = unsupportedLayer(layers);
  if (unsupported) return broken(unsupported);
  const model = layers.find((l) => l.mediaType === `${MEDIA}model`)!;
  const blob = blobPath(root, model.digest);
  if (!blob) return broken(`names its model layer by "${model.digest.slice(0, 80)}", not a sha256 digest`);
  const label = `model blob ${path.basename(blob)}`;
  if (!existsSync(blob))
    return { ...base, path: blob, label, problem: 'is missing from the store (an unfinished pull?)' };
  return { ...base, path: blob, label, facts: await factsOf(root, layers), problem: null };
}

/** Why a manifest's layers are not one GGUF model First Frame can run, or null. */
function unsupportedLayer(layers: Layer[]): string | null {
  const types = layers.map((l) => l.mediaType);
  if (types.some((t) => t === `${MEDIA}adapter`))
    return 'applies a LoRA adapter on top of its model, which First Frame does not run';
  if (types.some((t) => t.startsWith(`${MEDIA}tensor`)))
    return 'is stored as separate tensor layers (Ollama’s safetensors import), not as one GGUF file';
  const numModels = types.filter((t) => t === `${MEDIA}model`).length;
  if (numModels === 0) return 'has no model layer';
  if (numModels > 1) return `has ${numModels} model layers; one GGUF model is expected`;
  return null;
}

/** The blob file of a digest, or null for a digest that is not one (never a path outside blobs/). */
function blobPath(root: string, digest: string): string | null {
  const hex = DIGEST.exec(digest)?.[1];
  if (!hex) return null;
  const current = path.join(root, 'blobs', `sha256-${hex}`);
  const older = path.join(root, 'blobs', `sha256:${hex}`);
  return existsSync(current) || !existsSync(older) ? current : older;
}

/** The template, parameters and system prompt layers, each read only when small. */
async function factsOf(root: string, layers: Layer[]): Promise<SourceFacts> {
  const text = async (type: string) => {
    const layer = layers.find((l) => l.mediaType === `${MEDIA}${type}`);
    const blob = layer && blobPath(root, layer.digest);
    if (!blob) return null;
    const info = await stat(blob).catch(() => null);
    if (!info || info.size > MAX_LAYER_TEXT_BYTES) return null;
    return readFile(blob, 'utf8').catch(() => null);
  };
  const params = await text('params');
  return {
    defaultSampling: params === null ? null : samplingOf(params),
    template: await text('template'),
    systemPrompt: await text('system'),
  };
}

/** The parameters layer's sampling fields as default sampling, or null when it sets none. */
function samplingOf(text: string): DefaultSampling | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null; // a parameters layer that is not JSON sets nothing First Frame can use
  }
  const parsed = ParamsSchema.safeParse(raw);
  if (!parsed.success) return null;
  const { temperature, top_k, top_p, repeat_penalty } = parsed.data;
  if ([temperature, top_k, top_p, repeat_penalty].every((v) => v === undefined)) return null;
  return {
    source: 'Ollama parameters',
    doSample: null,
    temperature: temperature ?? null,
    topK: top_k ?? null,
    topP: top_p ?? null,
    repetitionPenalty: repeat_penalty ?? null,
  };
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
